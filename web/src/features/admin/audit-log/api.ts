import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import { apiFilter, type AuditLogSearch } from './search';

export const PAGE_SIZE = 100;

/**
 * One page of the filtered log: newest first from the span's end, `before` the cursor; or oldest first from the
 * span's start (or the month's), `after` the cursor.
 */
export const auditLogQuery = (s: AuditLogSearch) => {
  const filter = { ...apiFilter(s), after: s.after ?? 0, ...(s.before ? { before: s.before } : {}) };
  return queryOptions({
    queryKey: queryKeys.auditLog(filter),
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/audit-logs', { params: { query: { ...filter, count: PAGE_SIZE } } })),
    // The list stays while the next filter's page comes: nothing jumps.
    placeholderData: keepPreviousData,
  });
};

export type AuditEvent = Awaited<
  ReturnType<ReturnType<typeof auditLogQuery>['queryFn'] & {}>
>['events'][number];

/** Every action the service records, with the words the log shows for it (docs/api-decisions.md#audit-events). */
export const auditActionsQuery = () =>
  queryOptions({
    queryKey: queryKeys.auditActions(),
    queryFn: () => unwrap(api.GET('/api/public/v0/audit-logs/actions')),
    staleTime: Infinity, // the list changes only with a new version of the service
  });

export type AuditActionInfo = Awaited<
  ReturnType<ReturnType<typeof auditActionsQuery>['queryFn'] & {}>
>['actions'][number];
