import { createContext, lazy, Suspense, useContext, useMemo, useState, type ReactNode } from 'react';
import { isSingleKeyShortcut, useKeyDown } from '../../lib/keys';

// The dialog (and React Aria's overlay code) loads on first use: the sign-in page stays small.
const ShortcutsDialog = lazy(() => import('./ShortcutsDialog'));

interface ShortcutsContext {
  open: () => void;
}

const Context = createContext<ShortcutsContext>({ open: () => {} });
export const useShortcuts = () => useContext(Context);

export function ShortcutsProvider({ children }: { children: ReactNode }) {
  const [isOpen, setOpen] = useState(false);
  useKeyDown((e) => {
    // Turned off in the settings (WCAG 2.1.4): `?` is just a key; the account menu still opens the list.
    if (e.key === '?' && isSingleKeyShortcut(e)) {
      e.preventDefault();
      setOpen(true);
    }
  });
  const value = useMemo(() => ({ open: () => setOpen(true) }), []);
  return (
    <Context.Provider value={value}>
      {children}
      {isOpen && (
        <Suspense fallback={null}>
          <ShortcutsDialog onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </Context.Provider>
  );
}
