import { useState } from 'react';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { moment } from './people-text';

/** A one-time link (invitation or password reset) that was not e-mailed: shown once, to be passed on. */
export interface OneTimeLink {
  title: string;
  intro: string;
  link: string;
  expiresAt: string;
}

/** Shows a one-time link once, with a way to copy it; only Done closes it. */
export function OneTimeLinkDialog({
  shown,
  onClose,
}: {
  shown: OneTimeLink | undefined;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={shown?.title ?? ''}
      isOpen={!!shown}
      onOpenChange={(open) => !open && onClose()}
      // Shown once: only Done closes it, never a stray Escape or click beside it.
      isDismissable={false}
    >
      {shown && (
        <div className="one-time-link">
          <p>{shown.intro}</p>
          <p>
            <strong>This link is shown only this once and will not be shown again.</strong> Copy it now. It
            works once, until {moment(shown.expiresAt)}.
          </p>
          {/* A read-only text area: a name is allowed on it (not on <code>), and the link wraps and selects. */}
          <textarea
            className="people-secret"
            aria-label="One-time link"
            readOnly
            rows={3}
            value={shown.link}
            onFocus={(e) => e.currentTarget.select()}
          />
          <div className="dialog-actions">
            <CopyButton text={shown.link} />
            <Button slot="close" variant="primary">
              Done
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span className="people-copy">
      <Button
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        Copy the link
      </Button>
      <span role="status" className="people-note">
        {state === 'copied'
          ? 'Copied.'
          : state === 'failed'
            ? 'Copying was refused by the browser: select the link and copy it.'
            : ''}
      </span>
    </span>
  );
}
