import { Type, type Static } from 'typebox';

export const CUSTOM_FIELD_TYPES = ['text', 'dropdown', 'checkbox', 'richtext'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const CustomFieldOption = Type.Object({ id: Type.String(), value: Type.String() });
export type CustomFieldOption = Static<typeof CustomFieldOption>;

/** docs/api-decisions.md#endpoints-beyond-the-public-api: a tenant-wide custom field definition. */
export const CustomField = Type.Object({
  id: Type.String(),
  type: Type.String({ enum: [...CUSTOM_FIELD_TYPES] }),
  systemName: Type.String({
    description: "the key of the field in a test case's customFields and in cf_<systemName> filters",
  }),
  name: Type.String(),
  required: Type.Boolean(),
  enabled: Type.Boolean(),
  options: Type.Union([Type.Array(CustomFieldOption), Type.Null()], { description: 'dropdown fields only' }),
  defaultValue: Type.Optional(Type.String()),
  pos: Type.Integer({ description: 'display position, 0-based' }),
  allowAllProjects: Type.Boolean(),
  allowedProjectIds: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'null when allowAllProjects',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type CustomField = Static<typeof CustomField>;

export const CustomFieldList = Type.Object({ customFields: Type.Array(CustomField) });

/** What deleting a field removes: the cases (deleted ones too) and versions that hold a value under its name. */
export const CustomFieldUsage = Type.Object({
  cases: Type.Integer({ description: 'test cases with a value in any version' }),
  versions: Type.Integer({ description: 'test-case versions holding a value' }),
});
export type CustomFieldUsage = Static<typeof CustomFieldUsage>;

export const CustomFieldParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type CustomFieldParams = Static<typeof CustomFieldParams>;

const OptionInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({ description: 'keeps an existing option (on update); omit for a new one' }),
    ),
    value: Type.String({ description: '1-255 characters, unique in the field' }),
  },
  { additionalProperties: false },
);

const ValueDescription =
  'text: any text; dropdown: one of the option values; checkbox: "true" or "false"; richtext: HTML (sanitised)';

export const CreateCustomFieldBody = Type.Object(
  {
    type: Type.String({ enum: [...CUSTOM_FIELD_TYPES] }),
    systemName: Type.String({
      description: 'lower-case identifier (a-z, 0-9, _; starts with a letter), unique; fixed',
    }),
    name: Type.String({ description: '1-255 characters' }),
    required: Type.Optional(Type.Boolean({ default: false })),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    options: Type.Optional(Type.Array(OptionInput, { description: 'dropdown fields only: 1-100 options' })),
    defaultValue: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: ValueDescription })),
    allowAllProjects: Type.Optional(
      Type.Boolean({ description: 'default: true unless allowedProjectIds is given' }),
    ),
    allowedProjectIds: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'project ids or codes' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCustomFieldBody = Static<typeof CreateCustomFieldBody>;

export const UpdateCustomFieldBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: '1-255 characters' })),
    required: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
    options: Type.Optional(
      Type.Array(OptionInput, { description: 'replaces the options; an option with an id keeps that id' }),
    ),
    defaultValue: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: `null removes it; ${ValueDescription}` }),
    ),
    allowAllProjects: Type.Optional(Type.Boolean()),
    allowedProjectIds: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], {
        description: 'project ids or codes; implies allowAllProjects false',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateCustomFieldBody = Static<typeof UpdateCustomFieldBody>;

export const OrderCustomFieldsBody = Type.Object(
  {
    ids: Type.Array(Type.String(), {
      description: 'every custom field id of the tenant, once, in the new order',
    }),
  },
  { additionalProperties: false },
);
export type OrderCustomFieldsBody = Static<typeof OrderCustomFieldsBody>;

/** A test case's value of one custom field, as sent (docs/api-decisions.md#endpoints-beyond-the-public-api). */
export interface TcaseCustomFieldInput {
  isDefault?: boolean;
  value?: string | null;
}

/** A test case's value of one custom field, as returned. */
export interface TcaseCustomFieldValue {
  value: string;
  isDefault: boolean;
}

/**
 * A value as a version stores it: with the id of the field it was saved under, so that it is only ever shown as
 * that field's value (and rendered by that field's type), never as the value of a later field that took the same
 * system name. Values stored before the id was kept have none; migration 0015 left only those of the current
 * field of their name.
 */
export interface StoredCustomFieldValue extends TcaseCustomFieldValue {
  fieldId?: string;
}
