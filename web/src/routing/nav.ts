import type { AnyRoute } from '@tanstack/react-router';
import type { Role } from '../session/session';

/**
 * A tab of a bar (the project's, the administration's), declared by the route whose page it opens, in its
 * `staticData.tab`: the layouts build their bars from the routes under them, never from a list of their own.
 * The tab's address is the route's, the role it is shown to the route's guard's (routing/RequireRole.tsx).
 */
export interface Tab {
  label: string;
  /** Where in its bar: the bar sorts by this, lowest first. */
  order: number;
  /**
   * A project tab: the first address segments after `/project/<code>` that count as this tab (a case is under
   * Test cases, a run under Runs). An administration tab is current when the address starts with its own.
   */
  segments?: readonly string[];
}

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    tab?: Tab;
  }
}

export interface NavEntry extends Tab {
  to: string;
  /** The lowest role the tab is shown to. */
  role: Role;
}

/** The tabs of the routes right under `parents`, in their order. */
export function navEntries(routes: Iterable<AnyRoute>, parents: readonly AnyRoute[]): NavEntry[] {
  const entries: NavEntry[] = [];
  for (const route of routes) {
    const data = route.options?.staticData;
    if (!data?.tab || !parents.includes(route.parentRoute)) continue;
    // A layout's index route (`/project/$code/`) is its layout's address.
    const to = route.fullPath.length > 1 ? route.fullPath.replace(/\/$/, '') : route.fullPath;
    entries.push({ ...data.tab, to, role: data.access?.role ?? 'viewer' });
  }
  return entries.sort((a, b) => a.order - b.order);
}
