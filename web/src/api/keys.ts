/**
 * Every cache key of the application, spelled once. A key is a path from the general to the particular, and
 * invalidating a key refreshes every query whose key starts with it: `runs(code)` covers the project's run list
 * and each of its runs (with their cases and logs), `testCases(code)` every case, version and pick list of the
 * project, `me()` the person and their own settings, `projects()` everything of every project.
 *
 * Project codes are upper-cased here, so `/project/demo` and `/project/DEMO` share their cache.
 */
const P = (code: string) => code.toUpperCase();

export const queryKeys = {
  // The signed-in person and what only they see.
  me: () => ['me'] as const,
  twoFactor: () => ['me', '2fa'] as const,
  // The person's assigned cases across projects, read against their calendar day.
  myWork: (today: string) => ['me', 'work', today] as const,
  apiKeys: () => ['me', 'api-keys'] as const,

  // Pages reached without a session.
  invitation: (token: string) => ['invitation', token] as const,
  deviceCode: (userCode: string) => ['device-code', userCode] as const,
  signInProviders: () => ['sign-in-providers'] as const,

  // The tenant.
  statuses: () => ['statuses'] as const,
  users: () => ['users'] as const,
  accounts: () => ['people', 'accounts'] as const,
  invitations: () => ['people', 'invitations'] as const,
  accessDefaults: () => ['people', 'access-defaults'] as const,
  // The tenant's custom fields (a project's own list is `customFields(code)`), and what holds a field's values.
  tenantCustomFields: () => ['custom-fields'] as const,
  customFieldUsage: (id: string) => ['custom-fields', id, 'usage'] as const,
  // Administration: integrations (also what a project's "Link tracker" offers) and webhooks of the tenant. A
  // change to an integration also refreshes the projects' links (their names), which sit under `projects()`.
  adminIntegrations: () => ['admin', 'integrations'] as const,
  webhooks: () => ['admin', 'webhooks'] as const,
  // Administration → Sign-in: the tenant's OpenID Connect providers (each with its last test).
  oidcProviders: () => ['admin', 'oidc-providers'] as const,
  oidcProvider: (id: string) => ['admin', 'oidc-providers', id] as const,
  signInSettings: () => ['admin', 'sign-in-settings'] as const,
  webhook: (id: string) => ['admin', 'webhooks', id] as const,
  webhookDeliveries: (id: string) => ['admin', 'webhooks', id, 'deliveries'] as const,
  /** The delivery log's pages, all or one status: under webhookDeliveries, so refreshing that refreshes them. */
  webhookDeliveryPages: (id: string, status: string) =>
    ['admin', 'webhooks', id, 'deliveries', 'pages', status] as const,
  webhookDelivery: (id: string, deliveryId: string) =>
    ['admin', 'webhooks', id, 'deliveries', deliveryId] as const,
  // Service administration: the audit log, background jobs, every key, the instance.
  auditLog: (filter: object) => ['admin', 'audit-log', filter] as const,
  /** Every action the log records, with its words (fixed for a version of the service). */
  auditActions: () => ['admin', 'audit-log-actions'] as const,
  failedJobs: () => ['admin', 'jobs', 'failed'] as const,
  serviceApiKeys: () => ['admin', 'api-keys'] as const,
  /** The apps registered to sign people in with OAuth, and the rule for which may be approved (admin). */
  oauthClients: () => ['admin', 'oauth-clients'] as const,
  /** An app's sign-in request as the approval page shows it. */
  oauthAuthorization: (params: object) => ['oauth-authorization', params] as const,
  instance: () => ['admin', 'instance'] as const,
  // A project import from a Casebook archive.
  projectImport: (id: number) => ['admin', 'project-imports', id] as const,

  // Projects and what each holds.
  projects: () => ['projects'] as const,
  project: (code: string) => ['projects', P(code)] as const,
  projectCounts: (code: string) => ['projects', P(code), 'counts'] as const,
  folders: (code: string) => ['projects', P(code), 'folders'] as const,
  tags: (code: string) => ['projects', P(code), 'tags'] as const,
  customFields: (code: string) => ['projects', P(code), 'custom-fields'] as const,
  sharedSteps: (code: string) => ['projects', P(code), 'shared-steps'] as const,
  sharedPreconditions: (code: string) => ['projects', P(code), 'shared-preconditions'] as const,
  /** The live cases that use a shared step or precondition (under its kind's key above). */
  sharedItemUsers: (code: string, kind: 'step' | 'precondition', id: number) =>
    ['projects', P(code), kind === 'step' ? 'shared-steps' : 'shared-preconditions', id, 'users'] as const,
  integrations: (code: string) => ['projects', P(code), 'integrations'] as const,
  milestones: (code: string) => ['projects', P(code), 'milestones'] as const,
  milestone: (code: string, id: number) => ['projects', P(code), 'milestones', id] as const,
  configurations: (code: string) => ['projects', P(code), 'configurations'] as const,
  /** The saved views of a page (repository, runs) the person sees: their own and the shared ones. */
  views: (code: string, page: string) => ['projects', P(code), 'views', page] as const,
  /** Import jobs of the repository (one key per job under it). */
  imports: (code: string) => ['projects', P(code), 'imports'] as const,
  importJob: (code: string, id: number) => ['projects', P(code), 'imports', id] as const,

  // Test cases: one case (by seq or id), its versions, the repository's list pages.
  testCases: (code: string) => ['projects', P(code), 'tcase'] as const,
  testCase: (code: string, ref: string) => ['projects', P(code), 'tcase', ref] as const,
  testCaseVersion: (code: string, id: string, version: number) =>
    ['projects', P(code), 'tcase', id, 'version', version] as const,
  /** The history as it was when the case was at `current`: a new version is a new key. */
  testCaseVersions: (code: string, id: string, current: number) =>
    ['projects', P(code), 'tcase', id, 'versions', current] as const,
  filledCases: (code: string, templateId: string) =>
    ['projects', P(code), 'tcase', templateId, 'filled'] as const,
  /** Cases a run can take, by title and folders (none: any). */
  pickableCases: (code: string, search: string, folderIds: readonly number[] = []) =>
    ['projects', P(code), 'tcase', 'pick', search, [...folderIds]] as const,
  /** Live cases per folder (the tree's and the new-run picker's numbers): any case write, and folder moves. */
  folderCounts: (code: string) => ['projects', P(code), 'tcase', 'folder-counts'] as const,
  caseHistory: (code: string, tcaseId: string) => ['projects', P(code), 'tcase-history', tcaseId] as const,
  /** The same history a page at a time (the case page's "Show more"); invalidated with the key above. */
  caseHistoryPages: (code: string, tcaseId: string, pageSize: number) =>
    ['projects', P(code), 'tcase-history', tcaseId, 'pages', pageSize] as const,
  /** Every list page of the repository: what a write to test cases invalidates. */
  caseLists: (code: string) => ['projects', P(code), 'tcase-list'] as const,
  caseListPage: (code: string, filter: object, page: number) =>
    ['projects', P(code), 'tcase-list', filter, page] as const,

  // Runs, their cases and results; plans of runs.
  runs: (code: string) => ['projects', P(code), 'runs'] as const,
  run: (code: string, runId: number) => ['projects', P(code), 'runs', runId] as const,
  runTagged: (code: string, runId: number, tagId: number) =>
    ['projects', P(code), 'runs', runId, 'tagged', tagId] as const,
  runLogs: (code: string, runId: number) => ['projects', P(code), 'runs', runId, 'logs'] as const,
  runCases: (code: string, runId: number) => ['projects', P(code), 'runs', runId, 'tcases'] as const,
  /** Who can be assigned the run's cases. */
  projectAssignable: (code: string) => ['projects', P(code), 'assignable'] as const,
  runAssignable: (code: string, runId: number) => ['projects', P(code), 'runs', runId, 'assignable'] as const,
  runCase: (code: string, runId: number, tcaseId: string) =>
    ['projects', P(code), 'runs', runId, 'tcases', tcaseId] as const,
  /** The run's failures grouped by signature (triage): under the run, so what refreshes the run refreshes them. */
  runFailureGroups: (code: string, runId: number) =>
    ['projects', P(code), 'runs', runId, 'failure-groups'] as const,
  /** Defects linked before to failures like this result (triage's suggestions). */
  resultSuggestions: (code: string, resultId: number) =>
    ['projects', P(code), 'result-suggestions', resultId] as const,
  runPreview: (code: string, type: string, queryPlans: object[]) =>
    ['projects', P(code), 'run-preview', type, queryPlans] as const,
  plans: (code: string) => ['projects', P(code), 'plans'] as const,
  plan: (code: string, planId: number) => ['projects', P(code), 'plans', planId] as const,

  // Reports: everything a recorded result can change sits under `reports(code)`.
  reports: (code: string) => ['projects', P(code), 'reports'] as const,
  report: (code: string, kind: string, params: object) =>
    ['projects', P(code), 'reports', kind, params] as const,
  reportShares: (code: string) => ['projects', P(code), 'report-shares'] as const,
  /** A shared link's report, read without a session. */
  sharedReport: (token: string) => ['shared-report', token] as const,
};
