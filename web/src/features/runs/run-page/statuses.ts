import type { StatusId } from '../../../api/statuses';

/** The one key that records each status on the run page (custom statuses: their digit). */
export const STATUS_KEYS: Record<StatusId, string> = {
  passed: 'p',
  failed: 'f',
  blocked: 'b',
  skipped: 's',
  open: 'o',
  custom1: '1',
  custom2: '2',
  custom3: '3',
  custom4: '4',
};
