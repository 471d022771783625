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
}
