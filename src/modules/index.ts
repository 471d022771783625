import type { FastifyPluginAsync } from 'fastify';
import { auditRoutes } from './audit/audit.routes.js';
import { integrationsRoutes } from './integrations/integrations.routes.js';
import { foldersRoutes } from './folders/folders.routes.js';
import { testCasesRoutes } from './test-cases/test-cases.routes.js';
import { projectsPrivateRoutes, projectsRoutes } from './projects/projects.routes.js';
import { milestonesRoutes } from './milestones/milestones.routes.js';
import { configurationsRoutes } from './configurations/configurations.routes.js';
import { statusesRoutes } from './statuses/statuses.routes.js';
import { usersRoutes } from './users/users.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { runsRoutes } from './runs/runs.routes.js';
import { plansRoutes } from './plans/plans.routes.js';
import { resultsRoutes } from './runs/results/results.routes.js';
import { junitRoutes } from './runs/junit/junit.routes.js';
import { runAssigneesRoutes } from './runs/assignees/assignees.routes.js';
import { myWorkRoutes } from './runs/my-work/my-work.routes.js';
import { runLogsRoutes } from './run-logs/run-logs.routes.js';
import { tagsRoutes } from './tags/tags.routes.js';
import { requirementsRoutes } from './requirements/requirements.routes.js';
import { sharedStepsRoutes } from './shared-steps/shared-steps.routes.js';
import { sharedPreconditionsRoutes } from './shared-preconditions/shared-preconditions.routes.js';
import { customFieldsRoutes } from './custom-fields/custom-fields.routes.js';
import { accountsPrivateRoutes, accountsRoutes } from './accounts/accounts.routes.js';
import { apiKeysRoutes } from './api-keys/api-keys.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { wellKnownRoutes } from './oauth/oauth-code.routes.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';
import { jobsRoutes } from './jobs/jobs.routes.js';
import { reportsRoutes } from './reports/reports.routes.js';
import { reportSharesPrivateRoutes, reportSharesRoutes } from './reports/shares/shares.routes.js';
import type { JobDefinition } from '../outbox/handler.js';
import { webhookFanoutJob } from './webhooks/webhook-fanout.job.js';
import { webhookDeliveryJob } from './webhooks/webhook-delivery.job.js';
import { deliveryRetentionJob } from './webhooks/webhook-retention.job.js';
import { trackerCommentJob } from './runs/tracker-comment.job.js';
import { failureBackfillJob } from './runs/failures/failure-backfill.job.js';
import { pendingResultUploadsJob } from './runs/result-files/result-files-cleanup.job.js';
import { carryKnownMarks } from './triage/triage.service.js';
import { auditRetentionJob } from './audit/audit-retention.job.js';
import { idempotencyRetentionJob } from './idempotency/idempotency-retention.job.js';
import { importJob } from './imports/imports.job.js';
import { importsRoutes } from './imports/imports.routes.js';
import { archiveRoutes } from './imports/archive/archive.routes.js';
import { projectImportJob } from './imports/archive/archive.job.js';
import { viewsRoutes } from './views/views.routes.js';
import { triageRoutes } from './triage/triage.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { SCIM_PREFIX, scimRoutes } from './scim/scim.routes.js';
import { oidcProvidersRoutes, oidcSignInRoutes } from './oidc/oidc.routes.js';
import { samlProvidersRoutes, samlSignInRoutes } from './saml/saml.routes.js';

/** The one explicit list of public API route plugins, all under `/api/public/v0`. */
export const publicApiRoutes: FastifyPluginAsync[] = [
  projectsRoutes,
  foldersRoutes,
  testCasesRoutes,
  auditRoutes,
  integrationsRoutes,
  milestonesRoutes,
  configurationsRoutes,
  statusesRoutes,
  usersRoutes,
  filesRoutes,
  runsRoutes,
  plansRoutes,
  resultsRoutes,
  runAssigneesRoutes,
  myWorkRoutes,
  junitRoutes,
  runLogsRoutes,
  tagsRoutes,
  requirementsRoutes,
  sharedStepsRoutes,
  sharedPreconditionsRoutes,
  customFieldsRoutes,
  accountsRoutes,
  apiKeysRoutes,
  webhooksRoutes,
  oidcProvidersRoutes,
  samlProvidersRoutes,
  jobsRoutes,
  reportsRoutes,
  reportSharesRoutes,
  importsRoutes,
  archiveRoutes,
  viewsRoutes,
  triageRoutes,
];

/**
 * Route plugins under `/api`: the web application's private API (docs/api-decisions.md#endpoints-beyond-the-public-api)
 * and QA Sphere's MCP endpoint (`/api/mcp`).
 */
export const privateApiRoutes: FastifyPluginAsync[] = [
  authRoutes,
  oidcSignInRoutes,
  samlSignInRoutes,
  accountsPrivateRoutes,
  projectsPrivateRoutes,
  oauthRoutes,
  reportSharesPrivateRoutes,
  mcpRoutes,
];

/** Route plugins at the root, outside `/api`: the OAuth metadata MCP clients discover (`/.well-known/…`). */
export const rootRoutes: FastifyPluginAsync[] = [wellKnownRoutes];
/** SCIM 2.0 provisioning for identity providers, outside `/api` (docs/api-decisions.md#scim-provisioning). */
export const scimApi = { prefix: SCIM_PREFIX, routes: scimRoutes };

/**
 * The one explicit list of background work, each declared by the module that owns its tables; src/jobs/ runs it
 * (the outbox's job kinds, and the passes every server process makes on an interval).
 */
export const moduleJobs: JobDefinition[] = [
  webhookFanoutJob,
  webhookDeliveryJob,
  deliveryRetentionJob,
  trackerCommentJob,
  auditRetentionJob,
  idempotencyRetentionJob,
  pendingResultUploadsJob,
  importJob,
  projectImportJob,
  failureBackfillJob(carryKnownMarks),
];
