import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';

/** What the keyboard does everywhere; pages add theirs as they arrive (the repository: `/`, `j`/`k`, `n`, `e`). */
const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['?'], what: 'Show this list of shortcuts' },
  { keys: ['Tab'], what: 'Move to the next control (Shift+Tab: the previous one)' },
  { keys: ['Esc'], what: 'Close a dialog or menu' },
  { keys: ['Enter'], what: 'Open the focused link, press the focused button' },
  // test case page (repository feature)
  { keys: ['e'], what: 'Edit the open test case' },
  { keys: ['n'], what: 'New test case (in the open case’s folder)' },
  { keys: ['Ctrl', 'S'], what: 'Save the test case being edited (⌘S on a Mac)' },
  { keys: ['Esc'], what: 'Stop editing a test case (asks first when there are unsaved edits)' },
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
      <div className="dialog-actions">
        <Button slot="close" variant="primary">
          Close
        </Button>
      </div>
    </Dialog>
  );
}
