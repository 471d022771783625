import { Type, type Static } from 'typebox';

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
