import { useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { formErrorsOf, useForm } from '../../../lib/useForm';
import { meQuery } from '../../../session/session';
import { createReportShare } from '../api';
import { formatDateTime } from '../../../lib/format';

/** What a shared link opens: one report (extensions.md §6, POST /project/{p}/report/share). */
export interface ShareButtonProps {
  project: string;
  report: 'run' | 'plan' | 'milestone' | 'dashboard';
  params: { runId?: number; planId?: number; milestoneId?: number; since?: number };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const EXPIRY_DAYS = [1, 7, 30, 90] as const;
const DEFAULT_DAYS = 30;
const NAMES: Record<ShareButtonProps['report'], string> = {
  run: 'run report',
  plan: 'test plan report',
  milestone: 'milestone report',
  dashboard: 'project dashboard',
};

/** The API's rule (D3): sharing takes the test-runner role or higher; a viewer is not offered the button. */
const canShare = (role: string) => role !== 'viewer';

/**
 * "Share" on a report page: a dialog that makes an expiring, read-only link to this one report, shows it once
 * with Copy, and says who can open it and until when.
 */
export function ShareButton({ project, report, params }: ShareButtonProps) {
  const me = useQuery(meQuery);
  const [open, setOpen] = useState(false);
  if (!me.data || !canShare(me.data.role)) return null;
  return (
    <>
      <Button onPress={() => setOpen(true)}>Share</Button>
      {open && (
        <ShareDialog project={project} report={report} params={params} onClose={() => setOpen(false)} />
      )}
    </>
  );
}

function ShareDialog({ project, report, params, onClose }: ShareButtonProps & { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [days, setDays] = useState<number>(DEFAULT_DAYS);
  const [copied, setCopied] = useState<'yes' | 'no'>();
  const urlField = useRef<HTMLInputElement>(null);
  const create = useMutation({
    mutationFn: async () => {
      // Sent, rather than left to the service's default, so the dialog says exactly when it ends.
      const expiresAt = new Date(Date.now() + days * DAY_MS).toISOString();
      return { ...(await createReportShare(project, { report, params, expiresAt })), expiresAt };
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.reportShares(project) }),
  });
  const form = useForm({ errors: formErrorsOf, submit: () => create.mutateAsync() });
  const made = create.data;

  const copy = async () => {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.url);
      setCopied('yes');
    } catch {
      // No clipboard (an insecure origin, a refused permission): the address is selected for Ctrl+C instead.
      urlField.current?.select();
      setCopied('no');
    }
  };

  return (
    <Dialog
      title={`Share this ${NAMES[report]}`}
      isOpen
      onOpenChange={(o) => !o && onClose()}
      isDismissable={!create.isPending}
    >
      {!made ? (
        <Form onSubmit={form.handleSubmit} className="form">
          <p>
            Anyone with the link can read this {NAMES[report]} without signing in, until the link expires or
            is revoked. It shows the report only: nothing else of {project}.
          </p>
          <FormError message={form.formError ?? form.fieldErrors.expiresAt ?? form.fieldErrors.params} />
          <label className="field">
            <span className="field-label">The link expires after</span>
            <select
              className="field-input"
              value={days}
              autoFocus
              onChange={(e) => setDays(Number(e.target.value))}
            >
              {EXPIRY_DAYS.map((d) => (
                <option key={d} value={d}>
                  {d === 1 ? '1 day' : `${d} days`}
                </option>
              ))}
            </select>
          </label>
          <div className="dialog-actions">
            <Button isDisabled={create.isPending} onPress={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isPending={create.isPending}>
              Create link
            </Button>
          </div>
        </Form>
      ) : (
        <div className="form">
          <label className="field">
            <span className="field-label">Link to this {NAMES[report]}</span>
            <input ref={urlField} className="field-input share-url" readOnly value={made.url} autoFocus />
          </label>
          <p>
            Anyone who has this link can open the report, read-only and without signing in, until{' '}
            <strong>{formatDateTime(made.expiresAt)}</strong>. It is shown only now; the project&rsquo;s
            settings list the link and can revoke it.
          </p>
          <p role="status" className={copied === 'no' ? 'field-error' : 'muted'}>
            {copied === 'yes'
              ? 'Copied to the clipboard.'
              : copied === 'no'
                ? 'The clipboard cannot be used here: the link is selected, press Ctrl+C (⌘C) to copy it.'
                : ''}
          </p>
          <div className="dialog-actions">
            <Button onPress={() => void copy()}>Copy link</Button>
            <Button variant="primary" onPress={onClose}>
              Done
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
