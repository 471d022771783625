import { useEffect, useRef } from 'react';

/**
 * Single-key shortcuts can be turned off (WCAG 2.1.4); the setting lives in localStorage under this key
 * ("off" turns them off) and is read here only.
 */
export const SINGLE_KEY_SETTING = 'casebook.shortcuts.singleKey';
export const singleKeysOn = () => {
  try {
    return window.localStorage.getItem(SINGLE_KEY_SETTING) !== 'off';
  } catch {
    return true;
  }
};

/** Typing in a field is text, not a shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

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
