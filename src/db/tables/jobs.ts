import type { Generated } from 'kysely';

/** Kysely table types of the job outbox and webhooks (migration 0013_outbox_webhooks). */

export interface JobsTable {
  id: Generated<number>;
  tenant_id: string;
  kind: string;
  /** Jobs with one queue key run one at a time, oldest first (a webhook's deliveries); null: no order. */
  queue_key: string | null;
  /** JSON. */
  payload: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: Generated<number>;
  max_attempts: number;
  run_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhooksTable {
  id: string;
  tenant_id: string;
  name: string;
  endpoint: string;
  secret_enc: string | null;
  /** Sealed JSON object of header name → value. */
  headers_enc: string | null;
  /** JSON array of event types. */
  event_types: string;
  all_projects: number;
  /** JSON array of project ids. */
  project_ids: string;
  payload_template: string | null;
  enabled: number;
  disabled_reason: string | null;
  failing_since: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  /** Also the delivery id header. */
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  response_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  finished_at: string | null;
}

export interface JobsTables {
  jobs: JobsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
