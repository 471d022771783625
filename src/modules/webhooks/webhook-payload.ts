import type { ErrorDetail } from '../../errors.js';

/** What an event carries from the transaction that caused it to the fan-out (the outbox row's payload). */
export interface OutboxEvent {
  /** The event id: every delivery of this event carries it (X-Casebook-Event-Id), so receivers drop repeats. */
  id: string;
  type: string;
  tenantId: string;
  projectId: string;
  occurredAt: string;
  object: Record<string, unknown>;
}

/** The default body (docs/api-decisions.md#events-and-their-payloads): the event, the tenant, the project and the object. */
export function defaultPayload(
  event: OutboxEvent,
  project: { id: string; code: string; title: string } | undefined,
): Record<string, unknown> {
  return {
    id: event.id,
    event: event.type,
    occurredAt: event.occurredAt,
    tenant: { id: event.tenantId },
    project: project ?? { id: event.projectId },
    object: event.object,
  };
}

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

/** Problems of a payload template: placeholders must be dotted paths (`${object.title}`). */
export function checkTemplate(template: string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!PATH.test(m[1].trim()))
      errors.push({ path: '/payload', message: `"\${${m[1]}}" is not a placeholder like \${object.title}` });
  }
  return errors;
}

/** JSON-escapes a string's content, without the quotes (the template supplies them). */
const escapeJson = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * Renders a payload template over the default payload: `${a.b}` is the value at that path, JSON-escaped, so a
 * title with quotes or new lines cannot break the body or inject fields. Strings go in without quotes (write
 * `"${object.title}"`); numbers, booleans, objects and arrays as their JSON; an unknown path is empty.
 */
export function renderTemplate(template: string, data: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, path: string) => {
    let value: unknown = data;
    for (const key of path.trim().split('.')) {
      value =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return escapeJson(value);
    return JSON.stringify(value);
  });
}
