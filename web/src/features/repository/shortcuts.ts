import { useEffect, useRef } from 'react';

/** Single-key shortcuts can be turned off (WCAG 2.1.4): the one setting of app/shortcuts.ts. */
export { singleKeyShortcutsOn as singleKeysOn } from '../../lib/shortcuts';

/** A dialog, menu or listbox is open: Escape belongs to it. */
export const overlayOpen = () => !!document.querySelector('.modal-overlay, .popover, [role="listbox"]');

/** A window keydown handler that always sees the latest render's closure. */
export function useWindowKeys(handler: (e: KeyboardEvent) => void) {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => {
    const on = (e: KeyboardEvent) => ref.current(e);
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
}
