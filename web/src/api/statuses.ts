import type { paths } from './schema';

/**
 * The tenant's statuses as every page shows them (the run page, the lists of runs, plans and milestones): which
 * can be recorded now and their colours. Defined once, here, as the priorities are in priorities.ts.
 */

export type StatusSetting =
  paths['/api/public/v0/settings/preferences/status']['get']['responses'][200]['content']['application/json']['statuses'][number];
export type StatusId = StatusSetting['id'];

/** The colour names a status may have (D23), as fills readable on both palettes. */
export const STATUS_FILL: Record<string, string> = {
  blue: '#6b8afd',
  gray: '#9ca3af',
  red: '#e5484d',
  orange: '#f97316',
  yellow: '#eab308',
  green: '#2da44e',
  teal: '#14b8a6',
  indigo: '#6366f1',
  purple: '#a855f7',
  pink: '#ec4899',
};

/** The statuses a tester can record now: built-in ones and active custom ones, in the tenant's order. */
export function recordable(statuses: StatusSetting[] | undefined): StatusSetting[] {
  const fallback: StatusSetting[] = (['passed', 'failed', 'blocked', 'skipped', 'open'] as const).map(
    (id) => ({
      id,
      name: id[0].toUpperCase() + id.slice(1),
      color: ({ passed: 'green', failed: 'red', blocked: 'orange', skipped: 'gray', open: 'blue' } as const)[
        id
      ],
      isActive: true,
      isDefault: true,
    }),
  );
  return (statuses ?? fallback).filter((s) => s.isActive || s.isDefault);
}

export const statusById = (statuses: StatusSetting[]) => new Map(statuses.map((s) => [s.id as string, s]));
