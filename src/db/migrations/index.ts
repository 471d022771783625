import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_test_cases.js';
import * as m0003 from './0003_repository.js';
import * as m0004 from './0004_files.js';
import * as m0005 from './0005_execution.js';
import * as m0006 from './0006_admin.js';
import * as m0007 from './0007_run_time_spent.js';
import * as m0008 from './0008_result_plain_links.js';
import * as m0009 from './0009_oauth_device.js';
import * as m0010 from './0010_folder_deletion.js';
import * as m0011 from './0011_idempotency.js';
import * as m0012 from './0012_run_membership_version.js';
import * as m0013 from './0013_outbox_webhooks.js';
import * as m0014 from './0014_tracker_comments.js';
import * as m0015 from './0015_stale_custom_values.js';
import * as m0016 from './0016_instance_settings.js';
import * as m0017 from './0017_account_throttle.js';
import * as m0018 from './0018_report_indexes.js';
import * as m0019 from './0019_report_shares.js';
import * as m0020 from './0020_result_link_runs.js';
import * as m0021 from './0021_rate_limits.js';
import * as m0022 from './0022_audit_filters.js';
import * as m0023 from './0023_imports.js';
import * as m0024 from './0024_case_search.js';
import * as m0025 from './0025_file_chunks.js';
import * as m0027 from './0027_webhook_delivery_pages.js';
import * as m0028 from './0028_run_tcase_assignees.js';
import * as m0029 from './0029_plans_milestones.js';
import * as m0030 from './0030_saved_views.js';
import * as m0031 from './0031_project_imports.js';
import * as m0032 from './0032_import_rollback.js';
import * as m0033 from './0033_live_folder_counts.js';
import * as m0034 from './0034_webhook_failed_deliveries_additive.js';
import * as m0035 from './0035_project_access_defaults_additive.js';
import * as m0036 from './0036_scim_additive.js';
import * as m0037 from './0037_result_steps_additive.js';
import * as m0038 from './0038_oauth_clients_additive.js';
import * as m0039 from './0039_import_reconciliation_additive.js';
import * as m0040 from './0040_oidc_providers_additive.js';
import * as m0041 from './0041_failure_signatures_additive.js';
import * as m0042 from './0042_due_dates_additive.js';
import * as m0043 from './0043_failure_signature_version_additive.js';
import * as m0044 from './0044_saml_providers_additive.js';
import * as m0045 from './0045_sign_in_admin_additive.js';
import * as m0046 from './0046_result_files_additive.js';

/**
 * A migration. One that only adds (tables, nullable or defaulted columns, indexes), so that the code of the version
 * before it still runs on the schema it leaves, ends its name in `_additive` (db/migrator.ts ADDITIVE_SUFFIX); any
 * other is taken as breaking (instances of older code become unready).
 */
export type CasebookMigration = Migration;

/** Every migration, in order. Names are frozen once shipped; add new files at the end. */
export const migrations: Record<string, CasebookMigration> = {
  '0001_foundation': m0001,
  '0002_test_cases': m0002,
  '0003_repository': m0003,
  '0004_files': m0004,
  '0005_execution': m0005,
  '0006_admin': m0006,
  '0007_run_time_spent': m0007,
  '0008_result_plain_links': m0008,
  '0009_oauth_device': m0009,
  '0010_folder_deletion': m0010,
  '0011_idempotency': m0011,
  '0012_run_membership_version': m0012,
  '0013_outbox_webhooks': m0013,
  '0014_tracker_comments': m0014,
  '0015_stale_custom_values': m0015,
  '0016_instance_settings': m0016,
  '0017_account_throttle': m0017,
  '0018_report_indexes': m0018,
  '0019_report_shares': m0019,
  '0020_result_link_runs': m0020,
  '0021_rate_limits': m0021,
  '0022_audit_filters': m0022,
  '0023_imports': m0023,
  '0024_case_search': m0024,
  '0025_file_chunks': m0025,
  '0027_webhook_delivery_pages': m0027,
  '0028_run_tcase_assignees': m0028,
  '0029_plans_milestones': m0029,
  '0030_saved_views': m0030,
  '0031_project_imports': m0031,
  '0032_import_rollback': m0032,
  '0033_live_folder_counts': m0033,
  '0034_webhook_failed_deliveries_additive': m0034,
  '0035_project_access_defaults_additive': m0035,
  '0036_scim_additive': m0036,
  '0037_result_steps_additive': m0037,
  '0038_oauth_clients_additive': m0038,
  '0039_import_reconciliation_additive': m0039,
  '0040_oidc_providers_additive': m0040,
  '0041_failure_signatures_additive': m0041,
  '0042_due_dates_additive': m0042,
  '0043_failure_signature_version_additive': m0043,
  '0044_saml_providers_additive': m0044,
  '0045_sign_in_admin_additive': m0045,
  '0046_result_files_additive': m0046,
};
