import { Type } from 'typebox';
export const Configuration = Type.Object({
    id: Type.String(),
    title: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
});
export const ConfigurationList = Type.Object({ configurations: Type.Array(Configuration) });
export const CreateConfigurationBody = Type.Object({ title: Type.String({ description: '1-255 characters' }) }, { additionalProperties: false });
//# sourceMappingURL=configurations.schemas.js.map