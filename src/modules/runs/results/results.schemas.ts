import { Html } from '../../../http/schemas.js';
import { STATUS_IDS, type StatusId } from '../../../lib/statuses.js';
import { Type, type Static } from 'typebox';
import { FileInfo } from '../../files/files.schemas.js';

/** Most files one result may name (docs/api-decisions.md#attachments-on-results). */
export const MAX_RESULT_FILES = 20;

/** docs/api-decisions.md#shapes: a result takes one of the nine status ids (D23: custom ones only while active). */
export const RESULT_STATUSES = STATUS_IDS;
export type ResultStatus = StatusId;

/** Largest `timeTaken` we store (a 32-bit integer column on PostgreSQL). */
export const MAX_TIME_TAKEN = 2_147_483_647;

/** D11: a batch holds 1 to 5,000 results. */
export const MAX_BATCH_ITEMS = 5000;

export const ResultStatusField = Type.String({
  enum: [...RESULT_STATUSES],
  description:
    'passed, failed, blocked, skipped, open, custom1–custom4 (a custom status must be active, D23)',
});

/** D24: a plain link (`{text, url}`, a CI log or a dashboard) or a link to an issue of a linked integration. */
export const ResultLinkInput = Type.Object(
  {
    integrationId: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'an integration linked to the project (D24); left out for a plain link',
      }),
    ),
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'an absolute http(s) URL' }),
    text: Type.String({ maxLength: 1024, description: 'issue title, or the label of a plain link' }),
    meta: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'for non-custom integrations `meta.id` is an optional string (the issue number or key)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResultLinkInput = Static<typeof ResultLinkInput>;

/** extensions.md §7a: a backdated creation time (admins and owners; docs/api-decisions.md#backdated-history). */
export const BackdatedAt = Type.String({
  format: 'date-time',
  description:
    'ISO 8601; admins and owners only (403 otherwise), moving a history in: not in the future, and for a result not before its run',
});

/** extensions.md §8: the outcome of one step of the case version the result is recorded against. */
export const ResultStepInput = Type.Object(
  {
    stepId: Type.Optional(
      Type.Integer({ minimum: 1, description: "the step's id in the version (a standalone or shared step)" }),
    ),
    position: Type.Optional(
      Type.Integer({ minimum: 1, description: "the step's 1-based place in the version" }),
    ),
    status: ResultStatusField,
    comment: Type.Optional(Html({ description: 'HTML, sanitised on write (D22); "" when left out' })),
  },
  { additionalProperties: false, description: 'named by stepId or position (both: they must agree)' },
);
export type ResultStepInput = Static<typeof ResultStepInput>;

/** A step outcome as answered (docs/api-decisions.md#per-step-results). */
export const ResultStep = Type.Object({
  stepId: Type.Integer(),
  position: Type.Integer({ description: '1-based' }),
  status: Type.String(),
  comment: Type.String(),
});
export type ResultStep = Static<typeof ResultStep>;

/** Most steps one result may carry. */
export const MAX_RESULT_STEPS = 1000;

const resultFields = {
  status: ResultStatusField,
  comment: Type.Optional(
    Html({ description: 'HTML, sanitised on write (D22); left out, it is stored as "" (D26)' }),
  ),
  timeTaken: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: MAX_TIME_TAKEN }), Type.Null()], {
      description: 'milliseconds, stored rounded to a whole number; null when unknown',
    }),
  ),
  links: Type.Optional(Type.Array(ResultLinkInput)),
  steps: Type.Optional(
    Type.Array(ResultStepInput, {
      maxItems: MAX_RESULT_STEPS,
      description: 'per-step outcomes (extensions.md §8): each step of the version at most once',
    }),
  ),
  files: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: MAX_RESULT_FILES,
      description: `attachments (extensions.md §8): ids of files of the tenant uploaded with POST /file (best with ?purpose=result), at most ${MAX_RESULT_FILES}, each once`,
    }),
  ),
  createdAt: Type.Optional(BackdatedAt),
};

export const CreateResultBody = Type.Object(resultFields, { additionalProperties: false });
export type CreateResultBody = Static<typeof CreateResultBody>;

export const BatchResultItem = Type.Object(
  {
    tcaseId: Type.String({
      minLength: 1,
      description: 'a test case of the run: its id, sequence number or legacy id',
    }),
    ...resultFields,
  },
  { additionalProperties: false },
);
export type BatchResultItem = Static<typeof BatchResultItem>;

export const BatchResultsBody = Type.Object(
  {
    items: Type.Array(BatchResultItem, {
      minItems: 1,
      maxItems: MAX_BATCH_ITEMS,
      description: 'D11: 1–5,000 results, validated whole and written all or none; a test case may repeat',
    }),
  },
  { additionalProperties: false },
);
export type BatchResultsBody = Static<typeof BatchResultsBody>;

export const ResultIdResponse = Type.Object({ id: Type.Integer() });
export const ResultIdsResponse = Type.Object({
  ids: Type.Array(Type.Integer(), { description: 'in the order of `items`' }),
});

/** D24 comment-back: the outcome of the comment on the tracker issue a link names (docs/api-decisions.md). */
export const TrackerComment = Type.Object(
  {
    status: Type.Union([Type.Literal('pending'), Type.Literal('posted'), Type.Literal('failed')]),
    id: Type.Optional(Type.String({ description: "posted: the tracker's id of the comment" })),
    error: Type.Optional(Type.String({ description: 'failed (or pending a retry): why, in words' })),
    updatedAt: Type.String(),
  },
  {
    description:
      'present only on a link with meta.id on a tracker integration (not custom): the comment pointing back to the result',
  },
);

/**
 * The QA Sphere result link (docs/api-decisions.md#shapes); `integration` is null once the integration is no longer linked to the project.
 * A plain link (D24) has neither `integrationId` nor `integration`.
 */
export const ResultLink = Type.Object({
  id: Type.Integer(),
  resultId: Type.Integer(),
  integrationId: Type.Optional(Type.String()),
  integration: Type.Optional(
    Type.Union([
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        type: Type.String({ description: 'tracker_a, tracker_b, tracker_c or custom' }),
        config: Type.Record(Type.String(), Type.Unknown()),
      }),
      Type.Null(),
    ]),
  ),
  url: Type.String(),
  text: Type.String(),
  meta: Type.Record(Type.String(), Type.Unknown()),
  comment: Type.Optional(TrackerComment),
});
export type ResultLink = Static<typeof ResultLink>;

export const ResultAuthor = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  avatar: Type.Union([Type.String(), Type.Null()]),
  role: Type.String({ description: 'owner, admin, user, test-runner or viewer' }),
});

/** A result (docs/api-decisions.md#shapes), as shown in a run test case's `results`. */
export const Result = Type.Object({
  id: Type.Integer(),
  tcaseId: Type.String(),
  tcaseVersion: Type.String({ description: 'typed as a string (docs/api-decisions.md#response-shapes)' }),
  authorId: Type.Integer(),
  author: Type.Union([ResultAuthor, Type.Null()], {
    description: 'null only when the user no longer exists',
  }),
  status: Type.String(),
  comment: Type.String(),
  links: Type.Array(ResultLink, { description: 'never null: [] when the result has no links' }),
  timeTaken: Type.Union([Type.Number(), Type.Null()]),
  apiKeyId: Type.Union([Type.String(), Type.Null()], { description: 'set when added through an API key' }),
  internal: Type.Boolean({ description: 'true when the system added the result' }),
  createdAt: Type.String(),
  steps: Type.Optional(Type.Array(ResultStep, { description: 'present when step outcomes were recorded' })),
  files: Type.Optional(
    Type.Array(FileInfo, { description: 'present when the result names files (extensions.md §8)' }),
  ),
});
export type Result = Static<typeof Result>;
