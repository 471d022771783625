import { isApiError } from '../../api/client';
import { sentence, UNREACHABLE } from '../../lib/useForm';
import type { Account } from './api';
import { formatDate, formatDateTime } from '../../lib/format';

/** An API refusal in words, as a sentence. */
export function words(e: unknown): string {
  if (isApiError(e)) return sentence(e.message);
  return UNREACHABLE;
}

export const day = (iso: string) => formatDate(iso);
export const moment = (iso: string) => formatDateTime(iso);
export const nameOf = (a: Pick<Account, 'name' | 'email'>) => a.name || a.email;
