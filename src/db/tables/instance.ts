/** Kysely table types of the service's own settings (migration 0016_instance_settings). */
export interface InstanceSettingsTable {
  /** `secret_key_check`: a value sealed with the secret key (src/secret-key.ts); `readiness_probe`: /readyz's write. */
  name: string;
  value: string;
  updated_at: string;
}

export interface InstanceTables {
  instance_settings: InstanceSettingsTable;
}
