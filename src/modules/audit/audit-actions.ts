/**
 * Every action the audit log records, with the words the log's viewer shows for it. `recordAudit` takes only
 * these names, so an event cannot be recorded without being listed here, and the viewer's pick-list
 * (`GET /audit-logs/actions`) is never behind the code. `contract` marks the actions of the public API's event
 * table (D25); the rest are Casebook's, recorded beside them (docs/api-decisions.md#audit-events).
 */
const ACTIONS = {
  // Sign-in and accounts
  login: { area: 'Sign-in', label: 'Signed in', contract: true },
  logout: { area: 'Sign-in', label: 'Signed out', contract: true },
  password_change: { area: 'Sign-in', label: 'Changed password', contract: true },
  email_change: { area: 'Sign-in', label: 'Changed e-mail', contract: true },
  '2fa_enable': { area: 'Sign-in', label: 'Turned on two-factor sign-in', contract: true },
  '2fa_disable': { area: 'Sign-in', label: 'Turned off two-factor sign-in', contract: true },
  'auth.sign_ins_ended': { area: 'Sign-in', label: 'Other sign-ins ended', contract: false },
  password_reset: { area: 'Sign-in', label: 'Reset password', contract: true },
  request_password_reset: { area: 'Sign-in', label: 'Asked for a password reset', contract: true },
  'auth.ip_or_user_agent_changed': {
    area: 'Sign-in',
    label: 'Session moved to another address',
    contract: true,
  },
  'oauth.authorization_created': { area: 'Sign-in', label: 'Device or app sign-in approved', contract: true },
  'oauth.authorization_revoked': { area: 'Sign-in', label: 'Device or app sign-in revoked', contract: true },
  'oauth.client_registered': { area: 'Sign-in', label: 'App registered', contract: false },
  'oauth.approval_granted': { area: 'Sign-in', label: 'App approved', contract: false },
  'oauth.approval_denied': { area: 'Sign-in', label: 'App refused', contract: false },
  'oauth.client_policy_updated': { area: 'Sign-in', label: 'Allowed apps changed', contract: false },
  'oidc.sign_in': { area: 'Sign-in', label: 'Identity provider sign-in', contract: false },
  'oidc.provider_create': { area: 'Sign-in', label: 'Identity provider added', contract: false },
  'oidc.provider_update': { area: 'Sign-in', label: 'Identity provider changed', contract: false },
  'oidc.provider_delete': { area: 'Sign-in', label: 'Identity provider removed', contract: false },
  'oidc.test_sign_in': { area: 'Sign-in', label: 'Identity provider sign-in tested', contract: false },
  'sign_in.password_policy': { area: 'Sign-in', label: 'Password sign-in policy changed', contract: false },
  'saml.sign_in': { area: 'Sign-in', label: 'SAML sign-in', contract: false },
  'saml.provider_create': { area: 'Sign-in', label: 'SAML provider added', contract: false },
  'saml.provider_update': { area: 'Sign-in', label: 'SAML provider changed', contract: false },
  'saml.provider_delete': { area: 'Sign-in', label: 'SAML provider removed', contract: false },
  // People
  register: { area: 'People', label: 'Joined from an invitation', contract: true },
  invite_user: { area: 'People', label: 'Invited a person', contract: true },
  cancel_invite: { area: 'People', label: 'Cancelled an invitation', contract: true },
  issue_password_reset: { area: 'People', label: 'Issued a password reset link', contract: false },
  'invitation.projects': { area: 'People', label: "Invitation's projects", contract: false },
  'access_defaults.updated': { area: 'People', label: "New members' projects changed", contract: false },
  'scim.user_create': { area: 'People', label: 'Provisioned a person (SCIM)', contract: true },
  'scim.user_update': { area: 'People', label: 'Updated a person (SCIM)', contract: true },
  'scim.user_role_change': { area: 'People', label: "Changed a person's role (SCIM)", contract: false },
  'scim.user_deactivate': { area: 'People', label: 'Deactivated a person (SCIM)', contract: true },
  'scim.user_reactivate': { area: 'People', label: 'Reactivated a person (SCIM)', contract: true },
  'scim.user_delete': { area: 'People', label: 'Removed a person (SCIM)', contract: false },
  'scim.group_create': { area: 'People', label: 'Group created (SCIM)', contract: false },
  'scim.group_update': { area: 'People', label: 'Group changed (SCIM)', contract: false },
  'scim.group_delete': { area: 'People', label: 'Group removed (SCIM)', contract: false },
  // Projects and their settings
  archive_project: { area: 'Projects', label: 'Archived a project', contract: true },
  unarchive_project: { area: 'Projects', label: 'Restored a project', contract: true },
  delete_project: { area: 'Projects', label: 'Deleted a project', contract: true },
  'custom_field.deleted': { area: 'Projects', label: 'Deleted a custom field', contract: false },
  'project.imported': { area: 'Projects', label: 'Imported into a project', contract: false },
  'project.exported': { area: 'Projects', label: 'Exported a project', contract: false },
  // Test cases
  'tcase.created': { area: 'Test cases', label: 'Created test cases', contract: false },
  'tcase.updated': { area: 'Test cases', label: 'Edited a test case', contract: false },
  'tcase.moved': { area: 'Test cases', label: 'Moved test cases', contract: false },
  'tcase.deleted': { area: 'Test cases', label: 'Deleted test cases', contract: false },
  // Runs, results, plans, milestones
  'run.created': { area: 'Runs', label: 'Created a run', contract: false },
  'run.closed': { area: 'Runs', label: 'Closed a run', contract: false },
  'results.recorded': { area: 'Runs', label: 'Recorded results', contract: false },
  'run_tcases.assigned': { area: 'Runs', label: 'Assigned run cases', contract: false },
  'history.backdated': { area: 'Runs', label: 'Backdated a run or results', contract: false },
  'triage.defect_linked': { area: 'Runs', label: 'Linked a defect to a failure group', contract: false },
  'triage.marked_known': { area: 'Runs', label: 'Marked a failure as known', contract: false },
  'triage.unmarked_known': { area: 'Runs', label: 'Unmarked a known failure', contract: false },
  'plan.updated': { area: 'Plans and milestones', label: 'Edited a plan', contract: false },
  'plan.runs_added': { area: 'Plans and milestones', label: 'Added runs to a plan', contract: false },
  'plan.closed': { area: 'Plans and milestones', label: 'Closed a plan', contract: false },
  'milestone.created': { area: 'Plans and milestones', label: 'Created a milestone', contract: false },
  'milestone.updated': { area: 'Plans and milestones', label: 'Edited a milestone', contract: false },
  'report_share.created': { area: 'Plans and milestones', label: 'Shared a report', contract: false },
  'report_share.revoked': { area: 'Plans and milestones', label: 'Revoked a report link', contract: false },
  // Integrations and webhooks
  'integration.created': { area: 'Integrations', label: 'Added an issue tracker', contract: true },
  'integration.updated': { area: 'Integrations', label: 'Changed an issue tracker', contract: true },
  'integration.deleted': { area: 'Integrations', label: 'Removed an issue tracker', contract: true },
  'integration.project_linked': {
    area: 'Integrations',
    label: 'Linked a tracker to a project',
    contract: true,
  },
  'integration.project_unlinked': { area: 'Integrations', label: 'Unlinked a tracker', contract: true },
  'webhook.created': { area: 'Integrations', label: 'Added a webhook', contract: true },
  'webhook.updated': { area: 'Integrations', label: 'Changed a webhook', contract: true },
  'webhook.deleted': { area: 'Integrations', label: 'Removed a webhook', contract: true },
} as const satisfies Record<string, { area: string; label: string; contract: boolean }>;

export type AuditAction = keyof typeof ACTIONS;

/** The registry in the order the viewer lists it (by area, as written above). */
export function listAuditActions(): {
  action: AuditAction;
  area: string;
  label: string;
  contract: boolean;
}[] {
  return (Object.keys(ACTIONS) as AuditAction[]).map((action) => ({ action, ...ACTIONS[action] }));
}
