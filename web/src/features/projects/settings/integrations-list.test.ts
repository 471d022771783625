import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../../../api/keys';
import { integrationsQuery as adminList } from '../../admin/integrations/api';
import { integrationsQuery as linkTrackerList } from './api';

/**
 * A project's "Link tracker" list and the administration's list of integrations are one cache entry: an
 * integration created on the admin page (whose form invalidates `queryKeys.adminIntegrations()`) shows in a
 * project's list at once. A second key for the same `GET /integration` kept the old list for up to 30 s.
 */
describe("a project's Link tracker list", () => {
  it('is the same query as the administration list', () => {
    expect(linkTrackerList).toBe(adminList);
    expect(linkTrackerList.queryKey).toEqual(queryKeys.adminIntegrations());
  });

  it('goes stale when an integration is created (the admin form invalidates its key)', async () => {
    const client = new QueryClient();
    client.setQueryData(linkTrackerList.queryKey, []);
    await client.invalidateQueries({ queryKey: queryKeys.adminIntegrations(), refetchType: 'none' });
    expect(client.getQueryState(linkTrackerList.queryKey)?.isInvalidated).toBe(true);
  });
});
