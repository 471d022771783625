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

/** Actions the service records (docs/api-decisions.md#audit-events), offered as suggestions. */
export const KNOWN_ACTIONS = [
  'login',
  'logout',
  'password_change',
  'email_change',
  '2fa_enable',
  '2fa_disable',
  'invite_user',
  'cancel_invite',
  'issue_password_reset',
  'archive_project',
  'unarchive_project',
  'delete_project',
  'custom_field.deleted',
  'integration.created',
  'integration.updated',
  'integration.deleted',
  'integration.project_linked',
  'integration.project_unlinked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'report_share.created',
  'report_share.revoked',
  'plan.updated',
  'plan.runs_added',
  'plan.closed',
  'milestone.updated',
  'oauth.authorization_created',
  'oauth.authorization_revoked',
  'auth.sign_ins_ended',
] as const;
