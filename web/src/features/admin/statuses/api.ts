import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import type { StatusSetting } from '../../../api/statuses';

// The statuses are read through the app's one query (api/queries.ts statusesQuery): the run page shares it.
export { statusesQuery } from '../../../api/queries';

/** Saves the four custom statuses together (all or nothing); built-in ones are never sent. */
export const saveCustomStatuses = (statuses: Pick<StatusSetting, 'id' | 'name' | 'color' | 'isActive'>[]) =>
  unwrap(api.POST('/api/public/v0/settings/preferences/status', { body: { statuses } }));

/** The colour names the service takes (statuses.schemas.ts), in its order. */
export const COLORS = [
  'blue',
  'gray',
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'indigo',
  'purple',
  'pink',
] as const;

/** How many results hold each custom status (admin): what switching one off leaves, unchanged. */
export const statusUsageQuery = () =>
  queryOptions({
    queryKey: [...queryKeys.statuses(), 'usage'] as const,
    queryFn: async () =>
      new Map(
        (await unwrap(api.GET('/api/public/v0/settings/preferences/status/usage'))).statuses.map((s) => [
          s.id,
          s.results,
        ]),
      ),
  });
