import { Link } from '@tanstack/react-router';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';

/** What the keyboard does everywhere; pages add theirs as they arrive (the repository: `/`, `j`/`k`, `n`, `e`). */
const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['?'], what: 'Show this list of shortcuts' },
  { keys: ['Tab'], what: 'Move to the next control (Shift+Tab: the previous one)' },
  { keys: ['Esc'], what: 'Close a dialog or menu' },
  { keys: ['Enter'], what: 'Open the focused link, press the focused button' },
];

export default function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" isOpen onOpenChange={(open) => !open && onClose()}>
      <dl className="shortcut-list">
        {SHORTCUTS.map((s) => (
          <div key={s.what} className="shortcut">
            <dt>
              {s.keys.map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
            </dt>
            <dd>{s.what}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        Single-key shortcuts can be turned off in{' '}
        <Link to="/settings" onClick={onClose}>
          your settings
        </Link>
        .
      </p>
      <div className="dialog-actions">
        <Button slot="close" variant="primary">
          Close
        </Button>
      </div>
    </Dialog>
  );
}
