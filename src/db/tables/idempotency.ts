import type { Generated } from 'kysely';

/** Kysely table types of the Idempotency-Key records (migration 0011_idempotency). */
export interface IdempotencyKeysTable {
  id: Generated<number>;
  tenant_id: string;
  caller: string;
  route: string;
  idem_key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
  expires_at: string;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
