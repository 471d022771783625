import { Switch } from 'react-aria-components';
import { Link } from '@tanstack/react-router';
import { Button } from '../../components/Button';
import { setSingleKeyShortcuts, useSingleKeyShortcuts } from '../../lib/shortcuts';
import { Dialog } from '../../components/Dialog';

/** What the keyboard does everywhere; pages add theirs as they arrive (the repository: `/`, `j`/`k`, `n`, `e`). */
const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['?'], what: 'Show this list of shortcuts' },
  { keys: ['Tab'], what: 'Move to the next control (Shift+Tab: the previous one)' },
  { keys: ['Esc'], what: 'Close a dialog or menu' },
  { keys: ['Enter'], what: 'Open the focused link, press the focused button' },
  // Repository page (single keys: they follow the switch below).
  { keys: ['/'], what: 'Repository: focus the search' },
  { keys: ['j', 'k'], what: 'Repository: next / previous test case' },
  { keys: ['Space'], what: 'Repository: select or unselect the focused test case' },
  { keys: ['n'], what: 'Repository: new test case in the open folder' },
  // Test case page.
  { keys: ['e'], what: 'Test case: edit the open test case' },
  { keys: ['Ctrl', 'S'], what: 'Save the test case being edited (⌘S on a Mac)' },
  { keys: ['Esc'], what: 'Stop editing a test case (asks first when there are unsaved edits)' },
];

export default function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const singleKeys = useSingleKeyShortcuts();
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
      <Switch className="switch" isSelected={singleKeys} onChange={setSingleKeyShortcuts}>
        <span className="switch-track" aria-hidden="true" />
        Single-key shortcuts (?, /, j, k, n, e)
      </Switch>
      <p className="muted">
        The same switch is in{' '}
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
