import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { atLeast, type Role } from '../../../auth/roles.js';
import { AppError, badRequest, forbidden, notFound } from '../../../errors.js';
import { sha256 } from '../../../lib/crypto.js';
import { newSecret } from '../../../lib/ids.js';
import { parseJson } from '../../../lib/json.js';
import { nowIso } from '../../../lib/time.js';
import { onTenantHost } from '../../../lib/urls.js';
import { recordAudit } from '../../audit/audit.service.js';
import { resolveProject } from '../../projects/projects.service.js';
import { listStatuses } from '../../statuses/statuses.service.js';
import { getTenant } from '../../tenants/tenants.service.js';
import { getUser } from '../../users/users.service.js';
import * as reportsRepo from '../reports.repository.js';
import * as reports from '../reports.service.js';
import { folderReport } from '../folders/folders.service.js';
import * as repo from './shares.repository.js';
import type {
  CreateShareBody,
  CreatedShare,
  DashboardReport,
  ShareKind,
  ShareClosed,
  ShareItem,
  ShareList,
  ShareParams,
  SharedReport,
} from './shares.schemas.js';

/** The role a person needs to make a link, and to keep the links they made answering. */
export const SHARE_MIN_ROLE: Role = 'test-runner';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 90;

/** The one parameter each kind needs; `since` goes with a run report only. */
const NEEDED: Record<ShareKind, keyof ShareParams | null> = {
  run: 'runId',
  plan: 'planId',
  milestone: 'milestoneId',
  dashboard: null,
};

function checkParams(kind: ShareKind, params: ShareParams): void {
  const needed = NEEDED[kind];
  if (needed && params[needed] === undefined) {
    throw badRequest(`a ${kind} report needs params.${needed}`, `/params/${needed}`);
  }
  for (const key of Object.keys(params) as (keyof ShareParams)[]) {
    if (key !== needed && !(kind === 'run' && key === 'since')) {
      throw badRequest(`a ${kind} report takes no params.${key}`, `/params/${key}`);
    }
  }
}

function expiryOf(requested: string | undefined, now: number): string {
  if (requested === undefined) return new Date(now + DEFAULT_DAYS * DAY_MS).toISOString();
  const at = Date.parse(requested);
  if (Number.isNaN(at) || at <= now || at > now + MAX_DAYS * DAY_MS) {
    throw badRequest(`expiresAt must be in the future and at most ${MAX_DAYS} days ahead`, '/expiresAt');
  }
  return new Date(at).toISOString();
}

/** 404 unless what the link names exists in the project: a link never points at nothing or elsewhere. */
async function checkTarget(db: Db, tenantId: string, project: { id: string; code: string }, p: ShareParams) {
  const { id, code } = project;
  for (const runId of [p.runId, p.since]) {
    if (runId !== undefined && !(await reportsRepo.findRun(db, tenantId, id, runId))) {
      throw notFound(`run ${runId} not found in project ${code}`);
    }
  }
  if (p.planId !== undefined && !(await reportsRepo.findPlan(db, tenantId, id, p.planId))) {
    throw notFound(`plan ${p.planId} not found in project ${code}`);
  }
  if (p.milestoneId !== undefined && !(await reportsRepo.findMilestone(db, tenantId, id, p.milestoneId))) {
    throw notFound(`milestone ${p.milestoneId} not found in project ${code}`);
  }
}

/** Where links point: the public URL, or in multi-tenant mode the tenant's own host (D1). */
export interface LinkAddress {
  publicUrl: string;
  multiTenant: boolean;
}

async function linkBase(db: Db, tenantId: string, address: LinkAddress): Promise<string> {
  const base = address.publicUrl.replace(/\/+$/, '');
  return address.multiTenant ? onTenantHost(base, (await getTenant(db, tenantId)).host) : base;
}

export async function createShare(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: CreateShareBody,
  address: LinkAddress,
): Promise<CreatedShare> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const params = body.params ?? {};
  checkParams(body.report, params);
  const now = Date.now();
  const expiresAt = expiryOf(body.expiresAt, now);
  await checkTarget(db, actor.tenantId, project, params);
  const token = newSecret();
  const id = await db.transaction().execute(async (trx) => {
    const shareId = await repo.insertShare(trx, {
      tenant_id: actor.tenantId,
      project_id: project.id,
      kind: body.report,
      params: JSON.stringify(params),
      token_hash: sha256(token),
      created_by: actor.userId,
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt,
    });
    await recordAudit(trx, actor, 'report_share.created', {
      project: project.code,
      shareId,
      report: body.report,
      params,
      expiresAt,
    });
    return shareId;
  });
  return { id, token, url: `${await linkBase(db, actor.tenantId, address)}/shared/${token}` };
}

/**
 * Why a link does not answer now, or undefined when it does: revoked (for good), expired, or its creator lost
 * what making it needed: they are deactivated, or can no longer read the project (D3, the rule every request
 * meets) or make links. The creator is read at every use and nothing is stored, so whatever took the access
 * away (removal, deactivation, a lower role, a provisioning system), giving it back brings the links back.
 */
async function closedBecause(
  db: Db,
  tenantId: string,
  share: { project_id: string; created_by: number | null; revoked_at: string | null; expires_at: string },
  creators = new Map<number, Promise<ShareClosed | undefined>>(),
): Promise<ShareClosed | undefined> {
  if (share.revoked_at !== null) return 'revoked';
  if (share.expires_at <= nowIso()) return 'expired';
  const creatorId = share.created_by;
  if (creatorId === null) return 'creatorNoAccess';
  if (!creators.has(creatorId))
    creators.set(creatorId, creatorLoss(db, tenantId, share.project_id, creatorId));
  return creators.get(creatorId);
}

async function creatorLoss(
  db: Db,
  tenantId: string,
  projectId: string,
  creatorId: number,
): Promise<ShareClosed | undefined> {
  const user = await getUser(db, tenantId, creatorId).catch(unlessMissing);
  if (!user) return 'creatorNoAccess';
  if (!user.active) return 'creatorDeactivated';
  if (!atLeast(user.role, SHARE_MIN_ROLE)) return 'creatorNoAccess';
  const creator: Actor = {
    tenantId,
    userId: user.id,
    role: user.role,
    apiKeyId: null,
    via: 'session',
    ip: '',
    userAgent: '',
  };
  const project = await resolveProject(db, creator, projectId).catch(unlessMissing);
  return project ? undefined : 'creatorNoAccess';
}

/** A 403 or 404 from another service means "not there for this person"; anything else is a real failure. */
function unlessMissing(err: unknown): undefined {
  if (err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'FORBIDDEN')) return undefined;
  throw err;
}

export async function listShares(db: Db, actor: Actor, projectRef: string): Promise<ShareList> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listShares(db, actor.tenantId, project.id);
  // A project's links come from a few people: each creator is checked once.
  const creators = new Map<number, Promise<ShareClosed | undefined>>();
  const shares: ShareItem[] = [];
  for (const r of rows) {
    const closed = await closedBecause(db, actor.tenantId, r, creators);
    shares.push({
      id: r.id,
      report: r.kind as ShareKind,
      params: parseJson<ShareParams>(r.params, {}),
      createdBy:
        r.created_by !== null && r.creator_name !== null ? { id: r.created_by, name: r.creator_name } : null,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      revoked: r.revoked_at !== null,
      active: closed === undefined,
      ...(closed && { inactiveReason: closed }),
    });
  }
  return { shares };
}

/** Its creator or an admin revokes a link; revoking one already revoked changes nothing. */
export async function revokeShare(db: Db, actor: Actor, projectRef: string, id: number): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const share = await repo.findShare(db, actor.tenantId, project.id, id);
  if (!share) throw notFound(`shared report link ${id} not found in project ${project.code}`);
  if (share.created_by !== actor.userId && !atLeast(actor.role, 'admin')) {
    throw forbidden('only the link’s creator or an admin may revoke it');
  }
  if (share.revoked_at !== null) return;
  await db.transaction().execute(async (trx) => {
    await repo.revokeShare(trx, share.id, nowIso());
    await recordAudit(trx, actor, 'report_share.revoked', { project: project.code, shareId: share.id });
  });
}

/** One answer for every link that does not answer (unknown, expired, revoked, its creator's access gone). */
const NO_SUCH_LINK = 'this shared report link does not exist, has expired or was revoked';

/**
 * The report a token opens (GET /api/shared-report/{token}), read in the host's tenant. The reports are computed
 * by the report service as an admin would see them (the link, not a person, grants the read), and hold names but
 * no e-mail addresses and no attachments.
 */
export async function readShared(
  db: Db,
  source: { tenantId: string; ip: string; userAgent: string },
  token: string,
): Promise<SharedReport> {
  const share = await repo.findShareByTokenHash(db, source.tenantId, sha256(token));
  if (!share || (await closedBecause(db, source.tenantId, share))) throw notFound(NO_SUCH_LINK);
  const reader: Actor = {
    tenantId: source.tenantId,
    userId: share.created_by ?? 0,
    role: 'admin',
    apiKeyId: null,
    via: 'session',
    ip: source.ip,
    userAgent: source.userAgent,
  };
  const project = await resolveProject(db, reader, share.project_id);
  const params = parseJson<ShareParams>(share.params, {});
  const kind = share.kind as ShareKind;
  return {
    report: kind,
    params,
    project: { code: project.code, title: project.title },
    expiresAt: share.expires_at,
    statuses: await listStatuses(db, source.tenantId),
    data: await sharedData(db, reader, project.id, kind, params),
  };
}

const DASHBOARD_LAST = 20;
const DASHBOARD_LIMIT = 100;

async function sharedData(db: Db, reader: Actor, projectId: string, kind: ShareKind, p: ShareParams) {
  switch (kind) {
    case 'run':
      return reports.runReport(db, reader, projectId, p.runId ?? 0, p.since);
    case 'plan':
      return reports.planReport(db, reader, projectId, p.planId ?? 0);
    case 'milestone':
      return reports.milestoneReport(db, reader, projectId, p.milestoneId ?? 0);
    case 'dashboard': {
      const [trend, folders, flaky, failing, slowest, coverage, defects] = await Promise.all([
        reports.trendReport(db, reader, projectId, 'run', DASHBOARD_LAST, {}),
        folderReport(db, reader, projectId, DASHBOARD_LAST, DASHBOARD_LIMIT),
        reports.flakyReport(db, reader, projectId, DASHBOARD_LAST, DASHBOARD_LIMIT),
        reports.failingReport(db, reader, projectId, DASHBOARD_LAST, DASHBOARD_LIMIT),
        reports.slowestReport(db, reader, projectId, DASHBOARD_LAST, DASHBOARD_LIMIT),
        reports.coverageReport(db, reader, projectId),
        reports.defectsReport(db, reader, projectId, DASHBOARD_LAST, DASHBOARD_LIMIT),
      ]);
      return { trend, folders, flaky, failing, slowest, coverage, defects } satisfies DashboardReport;
    }
  }
}
