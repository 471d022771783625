import { useSyncExternalStore } from 'react';

/**
 * Whether single-key shortcuts (`?`, `/`, `j`/`k`, `n`, `e`) are on. WCAG 2.1.4: people who use speech input
 * or type by accident can turn them off (in their settings or the `?` dialog). Stored in this browser
 * (localStorage); every page that listens for a single key reads it through `useSingleKeyShortcuts` (or
 * `singleKeyShortcutsOn` in a handler) so one switch turns them all off, in every tab. Whether a key is typed
 * text rather than a shortcut is the one rule of lib/keys.ts (`isTyping`).
 */
const KEY = 'casebook.singleKeyShortcuts';
const listeners = new Set<() => void>();

/** The setting now, for key handlers outside React's render (the hook below is for rendering). */
export function singleKeyShortcutsOn(): boolean {
  try {
    return window.localStorage.getItem(KEY) !== 'off';
  } catch {
    return true;
  }
}

export function setSingleKeyShortcuts(on: boolean): void {
  try {
    window.localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => e.key === KEY && listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useSingleKeyShortcuts(): boolean {
  return useSyncExternalStore(subscribe, singleKeyShortcutsOn, () => true);
}
