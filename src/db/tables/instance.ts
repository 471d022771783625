/** Kysely table types of the service's own settings (migration 0016_instance_settings). */
export interface InstanceSettingsTable {
  /** `secret_key_check`: a value sealed with the secret key (src/secret-key.ts); `readiness_probe`: /readyz's write. */
  name: string;
  value: string;
  updated_at: string;
}

/** Rate-limit counters shared by every process and machine on PostgreSQL (migration 0021_rate_limits, D14). */
export interface RateLimitCountersTable {
  /** The limiter's bucket (`key:<tenant>.<api key id>`, `user:…`, `ip:…`: http/rate-limit.ts). */
  bucket: string;
  /** Requests counted in the window that ends at `expires_at`. */
  hits: number;
  /** The window's end, in ms since the epoch on the database's clock; the next request after it starts afresh. */
  expires_at: number;
}

export interface InstanceTables {
  instance_settings: InstanceSettingsTable;
  rate_limit_counters: RateLimitCountersTable;
}
