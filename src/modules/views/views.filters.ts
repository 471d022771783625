import { badRequest } from '../../errors.js';
import type { ViewFilters, ViewPage } from './views.schemas.js';

/**
 * What each page's address may hold (web/src/features/repository/search.ts and runs/search.ts read the same
 * keys): a saved view stores only parameters its page knows, each in the shape the page writes it. A key the
 * page does not know, or a value of the wrong shape, is a 400 naming the key.
 */
type Value = ViewFilters[string];
type Check = (v: Value) => string | undefined;

const MAX_TEXT = 500;
const positiveInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const text = (v: unknown, max = MAX_TEXT) => typeof v === 'string' && v.trim() !== '' && v.length <= max;

const oneOf =
  (allowed: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && allowed.includes(v) ? undefined : `must be one of ${allowed.join(', ')}`;
const listOf =
  (item: (x: unknown) => boolean, what: string): Check =>
  (v) =>
    Array.isArray(v) && v.length > 0 && v.every(item) ? undefined : `must be a non-empty list of ${what}`;
const id: Check = (v) => (positiveInt(v) ? undefined : 'must be a positive integer');
/** A search's words as typed: the pages keep them untrimmed while the person types. */
const words: Check = (v) =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT
    ? undefined
    : `must be text of 1-${MAX_TEXT} characters`;
/** The runs list's milestone, assignee and type: an id or a type's name, as the page writes it. */
const token: Check = (v) =>
  (typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v)) || positiveInt(v)
    ? undefined
    : 'must be an id or a name of letters, digits, _ and - (at most 64)';

const REPOSITORY: Record<string, Check> = {
  folder: id,
  q: words,
  tag: listOf(positiveInt, 'tag ids'),
  priority: listOf((x) => ['low', 'medium', 'high'].includes(x as string), 'low, medium, high'),
  type: listOf(
    (x) => ['standalone', 'template', 'filled'].includes(x as string),
    'standalone, template, filled',
  ),
  sort: oneOf(['seq', 'title', 'priority', 'updatedAt', 'createdAt']),
  order: oneOf(['asc', 'desc']),
};
/** A custom-field filter of the repository page, named as the test-case list names it. */
const CUSTOM_FIELD = /^cf_[A-Za-z0-9_-]{1,255}$/;
const customValues = listOf((x) => text(x, 255), 'texts of at most 255 characters');

const RUNS: Record<string, Check> = {
  milestone: token,
  assignee: token,
  type: token,
  q: words,
  sort: oneOf(['newest', 'oldest', 'title', 'pass-high', 'pass-low']),
};

/** A key as a JSON pointer's segment (RFC 6901). */
const pointer = (key: string) => `/filters/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Throws a 400 at `/filters/<key>` for the first key the page does not know or whose value it cannot take. */
export function checkFilters(page: ViewPage, filters: ViewFilters): void {
  const known = page === 'repository' ? REPOSITORY : RUNS;
  for (const [key, value] of Object.entries(filters)) {
    const check = Object.hasOwn(known, key)
      ? known[key]
      : page === 'repository' && CUSTOM_FIELD.test(key)
        ? customValues
        : undefined;
    if (!check) throw badRequest(`the ${page} page has no filter "${key}"`, pointer(key));
    const problem = check(value);
    if (problem) throw badRequest(`filter "${key}" ${problem}`, pointer(key));
  }
}
