import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/create-db.js';
import { projectsByRefs } from '../projects/projects.service.js';
import type { GrantableRole, ProjectRule, ProjectRuleIn, RoleRule } from './sso.schemas.js';

/** The first role rule whose group the person is in: its role, else undefined. */
export const mappedRole = (rules: RoleRule[], groups: string[]): GrantableRole | undefined =>
  rules.find((r) => groups.includes(r.group))?.role;

/** The projects of every project rule whose group the person is in. */
export const mappedProjects = (rules: ProjectRule[], groups: string[]): string[] => [
  ...new Set(rules.filter((r) => groups.includes(r.group)).flatMap((r) => r.projectIds)),
];

/** A claim's or attribute's value as a list of strings (a provider may send one group as a plain string). */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Project rules name projects by id or code; stored by id. 400 naming the first that is not a project. */
export async function resolveProjectRules(
  db: Db,
  tenantId: string,
  rules: ProjectRuleIn[],
): Promise<ProjectRule[]> {
  const out: ProjectRule[] = [];
  for (const [i, rule] of rules.entries()) {
    const projects = await projectsByRefs(db, tenantId, rule.projects, `/projectRules/${i}/projects`);
    out.push({ group: rule.group, projectIds: [...new Set(projects.map((p) => p.id))] });
  }
  return out;
}

/**
 * A path of this site to land on after signing in, else `/`: no scheme, no other host (`//evil`, `/\evil`), no
 * control characters (open redirects through returnTo are refused, as the web app's own check does).
 */
export function safeReturnTo(value: string | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return '/';
  const base = 'http://casebook.invalid';
  const url = new URL(value, base);
  return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : '/';
}

/** The sign-in page with the failure's word (and where the person was going, to try again). */
export function signInPage(reason: string, returnTo: string): string {
  const query = new URLSearchParams({ error: reason });
  if (returnTo !== '/') query.set('returnTo', returnTo);
  return `/sign-in?${query.toString()}`;
}

/**
 * Where people's browsers reach this service, for the redirect URI (OIDC) and the assertion consumer (SAML): CASEBOOK_PUBLIC_URL when it was set (so a proxy
 * that does not pass the scheme cannot change it), else the address this request came to; in multi-tenant mode the
 * tenant's own host (D1), as the request reached it.
 */
export function siteOrigin(config: Config, req: FastifyRequest): string {
  if (config.publicUrlSet && !config.multiTenant) return new URL(config.publicUrl).origin;
  if (!req.host) return new URL(config.publicUrl).origin;
  return new URL(`${req.protocol}://${req.host}`).origin;
}
