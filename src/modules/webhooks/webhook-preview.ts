import { AppError } from '../../errors.js';
import { defaultPayload, checkTemplate, renderTemplate, type OutboxEvent } from './webhook-payload.js';
import type { PayloadPreview, WebhookEventType } from './webhooks.schemas.js';

/**
 * A sample `object` of each event (docs/api-decisions.md#events-and-their-payloads): the same fields a real event
 * carries, with made-up values, so a template is tried against the shape it will meet.
 */
const SAMPLES: Record<WebhookEventType, Record<string, unknown>> = {
  run_created: { id: 12, title: 'Nightly regression', type: 'static', planId: null, tcaseCount: 42 },
  run_updated: {
    id: 12,
    title: 'Nightly regression',
    changed: ['title'],
    assignmentId: null,
    milestoneId: 3,
  },
  run_closed: { id: 12, title: 'Nightly regression' },
  plan_created: { id: 5, title: 'Release 2.4', runIds: [12, 13] },
  plan_updated: {
    id: 5,
    title: 'Release 2.4',
    changed: ['milestoneId'],
    milestoneId: 3,
    closed: false,
    runIds: [12, 13],
  },
  tcase_created: { id: 'tc_sample', seq: 7, title: 'Checkout with a saved card', folderId: 2 },
  tcases_created: {
    folderId: 2,
    tcases: [
      { id: 'tc_sample', seq: 7, title: 'Checkout with a saved card' },
      { id: 'tc_sample2', seq: 8, title: 'Checkout as a guest' },
    ],
  },
  tcase_edited: { id: 'tc_sample', seq: 7, title: 'Checkout with a saved card', version: 3 },
  tcases_edited: { action: 'moved', count: 2, tcaseIds: ['tc_sample', 'tc_sample2'], folderId: 4 },
  result_created: { runId: 12, id: 901, tcaseId: 'tc_sample', status: 'failed' },
  results_created: {
    runId: 12,
    count: 2,
    results: [
      { id: 901, tcaseId: 'tc_sample', status: 'failed' },
      { id: 902, tcaseId: 'tc_sample2', status: 'passed' },
    ],
  },
};

/**
 * Renders a payload template (or the default body, when none) against a sample event of the given type: the body a
 * receiver would get. A malformed placeholder is a 400 naming /payload, as on save; a body that is not JSON is
 * answered with the parser's words, since it is sent as application/json as rendered.
 */
export function previewPayload(
  tenantId: string,
  input: { payload?: string; eventType?: WebhookEventType },
): PayloadPreview {
  if (input.payload !== undefined) {
    const errors = checkTemplate(input.payload);
    if (errors.length > 0)
      throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  }
  const type = input.eventType ?? 'run_created';
  const event: OutboxEvent = {
    id: '00000000-0000-4000-8000-000000000000',
    type,
    tenantId,
    projectId: 'prj_sample',
    occurredAt: new Date().toISOString(),
    object: SAMPLES[type],
  };
  const data = defaultPayload(event, { id: 'prj_sample', code: 'SHOP', title: 'Web shop' });
  const body = input.payload === undefined ? JSON.stringify(data) : renderTemplate(input.payload, data);
  let jsonError: string | null = null;
  try {
    JSON.parse(body);
  } catch (err) {
    jsonError = `the body is not valid JSON: ${(err as Error).message}`;
  }
  return { eventType: type, body, jsonError };
}
