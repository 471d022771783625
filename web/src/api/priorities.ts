import type { paths } from './schema';

type ApiPriority =
  paths['/api/public/v0/project/{project}/tcase']['get']['responses'][200]['content']['application/json']['data'][number]['priority'];

/**
 * A test case's priorities, highest first: the order every filter, picker and form offers them in, and what an
 * address may hold. Defined once, here.
 */
export const PRIORITIES = ['high', 'medium', 'low'] as const satisfies readonly ApiPriority[];
export type Priority = (typeof PRIORITIES)[number];

// Every priority of the API is listed: one added there fails to compile here until it is.
const _everyPriority: [Exclude<ApiPriority, Priority>] extends [never] ? true : false = true;

/** Each priority's name on screen. */
export const PRIORITY_NAMES: Record<Priority, string> = { high: 'High', medium: 'Medium', low: 'Low' };

export const isPriority = (v: unknown): v is Priority => (PRIORITIES as readonly unknown[]).includes(v);
