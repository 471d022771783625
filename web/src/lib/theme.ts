import { useSyncExternalStore } from 'react';

/**
 * The colour theme: light, dark, or the system's (the default). Kept in this browser (localStorage), like the
 * keyboard setting, and applied as `data-theme` on <html>, which styles.css reads (`color-scheme`, so every
 * `light-dark()` colour follows). boot.ts applies the stored choice before the application loads, so a dark
 * page never flashes light.
 */
export type Theme = 'light' | 'dark' | 'system';
export const THEMES: readonly Theme[] = ['light', 'dark', 'system'];

export const THEME_KEY = 'casebook.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';
const listeners = new Set<() => void>();

export function storedTheme(): Theme {
  try {
    const value = window.localStorage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Puts the theme on the page: `data-theme` for a chosen one, none for the system's. */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}

export function setTheme(theme: Theme): void {
  try {
    if (theme === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
  applyTheme(theme);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab chose a theme: this one follows.
  const onStorage = (e: StorageEvent) => {
    if (e.key !== THEME_KEY) return;
    applyTheme(storedTheme());
    listener();
  };
  const system = window.matchMedia(DARK_QUERY);
  window.addEventListener('storage', onStorage);
  system.addEventListener('change', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
    system.removeEventListener('change', listener);
  };
}

export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, storedTheme, () => 'system');
}

const systemDark = () => window.matchMedia(DARK_QUERY).matches;

/** Whether the page shows dark now (the chosen theme, or the system's): for what CSS cannot restyle (canvas). */
export function isDark(): boolean {
  const theme = storedTheme();
  return theme === 'system' ? systemDark() : theme === 'dark';
}

/** Whether the system asks for dark, whatever was chosen here. */
export function useSystemDark(): boolean {
  return useSyncExternalStore(subscribe, systemDark, () => false);
}

export function useDark(): boolean {
  return useSyncExternalStore(subscribe, isDark, () => false);
}
