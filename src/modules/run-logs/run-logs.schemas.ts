import { Html } from '../../http/schemas.js';
import { Type, type Static } from 'typebox';

export const CreateRunLogBody = Type.Object(
  {
    comment: Html({
      description: 'HTML; sanitised (D22) and trimmed; must not be empty afterwards',
    }),
  },
  { additionalProperties: false },
);
export type CreateRunLogBody = Static<typeof CreateRunLogBody>;

/** D21: a run log entry; its id is a string. */
export const RunLog = Type.Object({
  id: Type.String(),
  runId: Type.Integer(),
  comment: Type.String({ description: 'sanitised HTML' }),
  authorId: Type.Integer(),
  createdAt: Type.String(),
});
export type RunLog = Static<typeof RunLog>;

/** D21: `GET …/run/{id}/log` answers `{logs: RunLog[]}`, oldest first. */
export const RunLogList = Type.Object({ logs: Type.Array(RunLog) });
export type RunLogList = Static<typeof RunLogList>;

export const RunLogId = Type.Object({ id: Type.String() });
