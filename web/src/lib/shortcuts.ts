import { useSyncExternalStore } from 'react';

/**
 * Whether single-key shortcuts (`?`, `/`, `j`/`k`, `n`, `e`) are on. WCAG 2.1.4: people who use speech input
 * or type by accident can turn them off (in their settings or the `?` dialog). Stored in this browser
 * (localStorage); every listener for a single key asks `isSingleKeyShortcut` (lib/keys.ts), which reads it here,
 * so one switch turns them all off, in every tab; the switches that show it use `useSingleKeyShortcuts`.
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
