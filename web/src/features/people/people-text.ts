import { isApiError } from '../../api/client';
import { sentence, UNREACHABLE } from '../../lib/useForm';
import type { Account } from './api';

/** An API refusal in words, as a sentence. */
export function words(e: unknown): string {
  if (isApiError(e)) return sentence(e.message);
  return UNREACHABLE;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const day = (iso: string) => dateFormat.format(new Date(iso));
export const moment = (iso: string) => dateTimeFormat.format(new Date(iso));
export const nameOf = (a: Pick<Account, 'name' | 'email'>) => a.name || a.email;
