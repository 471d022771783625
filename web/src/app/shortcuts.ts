import { useSyncExternalStore } from 'react';

/**
 * Whether single-key shortcuts (`?`, `/`, `j`/`k`, `n`, `e`) are on. WCAG 2.1.4: people who use speech input
 * or type by accident can turn them off in their settings. Stored in this browser (localStorage); every page
 * that listens for a single key reads it through `useSingleKeyShortcuts` (or `singleKeyShortcutsOn` in a
 * handler) so one switch turns them all off.
 */
const KEY = 'casebook.singleKeyShortcuts';
const listeners = new Set<() => void>();

export function singleKeyShortcutsOn(): boolean {
  try {
    return window.localStorage.getItem(KEY) !== 'off';
  } catch {
    return true;
  }
}

export function setSingleKeyShortcuts(on: boolean): void {
  try {
    if (on) window.localStorage.removeItem(KEY);
    else window.localStorage.setItem(KEY, 'off');
  } catch {
    // Storage refused (private mode): the setting lasts only until the page is reloaded.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab changing the setting applies here too.
  const onStorage = (e: StorageEvent) => e.key === KEY && listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** `[on, setOn]`: the single-key shortcuts setting, re-rendering when it changes (here or in another tab). */
export function useSingleKeyShortcuts(): [boolean, (on: boolean) => void] {
  const on = useSyncExternalStore(subscribe, singleKeyShortcutsOn, () => true);
  return [on, setSingleKeyShortcuts];
}
