import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Dialog } from '../../components/Dialog';
import { Button } from '../../components/Button';

interface ShortcutsContext {
  open: () => void;
}

const Context = createContext<ShortcutsContext>({ open: () => {} });
export const useShortcuts = () => useContext(Context);

/** What the keyboard does everywhere; pages add theirs as they arrive (the repository: `/`, `j`/`k`, `n`, `e`). */
const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['?'], what: 'Show this list of shortcuts' },
  { keys: ['Tab'], what: 'Move to the next control (Shift+Tab: the previous one)' },
  { keys: ['Esc'], what: 'Close a dialog or menu' },
  { keys: ['Enter'], what: 'Open the focused link, press the focused button' },
];

/** Typing a `?` in a field is text, not a shortcut. */
function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

export function ShortcutsProvider({ children }: { children: ReactNode }) {
  const [isOpen, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target)) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const value = useMemo(() => ({ open: () => setOpen(true) }), []);
  return (
    <Context.Provider value={value}>
      {children}
      <Dialog title="Keyboard shortcuts" isOpen={isOpen} onOpenChange={setOpen}>
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
    </Context.Provider>
  );
}
