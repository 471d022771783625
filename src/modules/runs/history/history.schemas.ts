import { ResultStep } from '../results/results.schemas.js';
import { FileInfo } from '../../files/files.schemas.js';
import { Type, type Static } from 'typebox';

export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 500;

export const TcaseHistoryParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 255, description: 'id, seq (maybe zero-padded) or legacy id' }),
});
export type TcaseHistoryParams = Static<typeof TcaseHistoryParams>;

export const TcaseHistoryQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: HISTORY_MAX_LIMIT,
        description: `default ${HISTORY_DEFAULT_LIMIT}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type TcaseHistoryQuery = Static<typeof TcaseHistoryQuery>;

export const TcaseHistoryResponse = Type.Object({
  total: Type.Integer({ description: 'runs holding a result of the test case' }),
  offset: Type.Integer(),
  limit: Type.Integer(),
  results: Type.Array(
    Type.Object({
      id: Type.Integer({ description: 'the result id' }),
      run: Type.Object({
        id: Type.Integer(),
        title: Type.String(),
        type: Type.String(),
        closed: Type.Boolean(),
      }),
      inRun: Type.Boolean({
        description: 'false when the case has left the run since (its results are kept)',
      }),
      status: Type.String(),
      comment: Type.String(),
      authorId: Type.Integer(),
      author: Type.Union(
        [Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() }), Type.Null()],
        {
          description: 'null only when the user no longer exists',
        },
      ),
      tcaseVersion: Type.Integer({ description: 'the version the result was recorded on' }),
      timeTaken: Type.Union([Type.Number(), Type.Null()]),
      createdAt: Type.String({ description: 'may be backdated (extensions.md §7a)' }),
      steps: Type.Optional(
        Type.Array(ResultStep, { description: 'per-step outcomes, when recorded (extensions.md §8)' }),
      ),
      files: Type.Optional(
        Type.Array(FileInfo, { description: 'attachments, when the result names files (extensions.md §8)' }),
      ),
    }),
    { description: "the case's latest result in each run, newest first (by createdAt, then id)" },
  ),
});
export type TcaseHistoryResponse = Static<typeof TcaseHistoryResponse>;
