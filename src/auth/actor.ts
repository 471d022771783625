import type { Selectable } from 'kysely';
import type { ProjectsTable } from '../db/schema.js';
import type { Role } from './roles.js';

/** Who is calling: passed to every service that needs to know. */
export interface Actor {
  tenantId: string;
  userId: number;
  role: Role;
  /** Set when the request was authenticated by an API key (results record it, runs are `isAutomated`). */
  apiKeyId: string | null;
  via: 'key' | 'session';
  ip: string;
  userAgent: string;
  /**
   * What authentication already read of the project a read request names (the API-key statement joins it):
   * the request's first resolveProject uses it instead of a statement of its own, and clears it.
   */
  knownProject?: KnownProject;
}

/** A project a request names, read with the request's key (authenticateApiKey): row undefined when there is none. */
export interface KnownProject {
  ref: string;
  row: Selectable<ProjectsTable> | undefined;
  /** Whether the caller is a member of it (D3). */
  member: boolean;
}
