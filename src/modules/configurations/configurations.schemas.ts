import { Type, type Static } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';

export const Configuration = Type.Object({
  id: Type.String(),
  title: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type Configuration = Static<typeof Configuration>;

export const ConfigurationList = Type.Object({ configurations: Type.Array(Configuration) });

export const CreateConfigurationBody = Type.Object(
  { title: Type.String({ description: '1-255 characters' }) },
  { additionalProperties: false },
);
export type CreateConfigurationBody = Static<typeof CreateConfigurationBody>;

export const ConfigurationParams = Type.Object({
  project: ProjectParams.properties.project,
  configuration: Type.String({ minLength: 1, maxLength: 64 }),
});
export type ConfigurationParams = Static<typeof ConfigurationParams>;

export const UpdateConfigurationBody = Type.Object(
  {
    title: Type.String({
      description: '1-255 characters; 409 when another configuration of the project has it',
    }),
  },
  { additionalProperties: false },
);
export type UpdateConfigurationBody = Static<typeof UpdateConfigurationBody>;

export const ConfigurationUsage = Type.Object({
  runs: Type.Integer({ description: 'runs of the project that use the configuration, open or closed' }),
  openRuns: Type.Integer({ description: 'of those, the runs not closed' }),
});
export type ConfigurationUsage = Static<typeof ConfigurationUsage>;
