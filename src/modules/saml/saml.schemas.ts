import { Type, type Static } from 'typebox';
import { providerFields, ProjectRule, RoleRule } from '../sso/sso.schemas.js';

const AttributeName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s]+$' });

const fields = {
  idpEntityId: Type.String({
    minLength: 1,
    maxLength: 1024,
    description: "the IdP's entity id (its Issuer)",
  }),
  ssoUrl: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "the IdP's single sign-on address (HTTP-Redirect binding): https, or http for a local test IdP",
  }),
  idpCertificate: Type.String({
    minLength: 1,
    maxLength: 20_000,
    description:
      "the IdP's signing certificate (PEM, or its base64 body): the only key assertions are checked with (pinned)",
  }),
  idpMetadataXml: Type.String({
    minLength: 1,
    maxLength: 500_000,
    description:
      "the IdP's metadata XML: its entity id, HTTP-Redirect sign-on address and signing certificate are read from it (fields sent beside it win)",
  }),
  allowIdpInitiated: Type.Boolean({
    description:
      'true: answers no sign-in started here asked for (IdP-initiated) are taken; false (default): refused',
  }),
  emailAttribute: AttributeName,
  nameAttribute: AttributeName,
  groupsAttribute: AttributeName,
};

const optional = {
  idpEntityId: Type.Optional(fields.idpEntityId),
  ssoUrl: Type.Optional(fields.ssoUrl),
  idpCertificate: Type.Optional(fields.idpCertificate),
  idpMetadataXml: Type.Optional(fields.idpMetadataXml),
  enabled: Type.Optional(providerFields.enabled),
  allowIdpInitiated: Type.Optional(fields.allowIdpInitiated),
  justInTime: Type.Optional(providerFields.justInTime),
  defaultRole: Type.Optional(providerFields.defaultRole),
  emailAttribute: Type.Optional(fields.emailAttribute),
  nameAttribute: Type.Optional(fields.nameAttribute),
  groupsAttribute: Type.Optional(fields.groupsAttribute),
  roleRules: Type.Optional(providerFields.roleRules),
  projectRules: Type.Optional(providerFields.projectRules),
};

/** The IdP's entity id, address and certificate are required: given, or read from `idpMetadataXml`. */
export const CreateSamlProviderBody = Type.Object(
  { name: providerFields.name, ...optional },
  { additionalProperties: false },
);
export type CreateSamlProviderBody = Static<typeof CreateSamlProviderBody>;

export const UpdateSamlProviderBody = Type.Object(
  { name: Type.Optional(providerFields.name), ...optional },
  { additionalProperties: false },
);
export type UpdateSamlProviderBody = Static<typeof UpdateSamlProviderBody>;

export const SamlProvider = Type.Object({
  id: Type.String(),
  name: Type.String(),
  idpEntityId: Type.String(),
  ssoUrl: Type.String(),
  idpCertificate: Type.String({ description: 'PEM (public: a certificate is no secret)' }),
  enabled: Type.Boolean(),
  allowIdpInitiated: Type.Boolean(),
  justInTime: Type.Boolean(),
  defaultRole: Type.String(),
  emailAttribute: Type.String(),
  nameAttribute: Type.String(),
  groupsAttribute: Type.String(),
  roleRules: Type.Array(RoleRule),
  projectRules: Type.Array(ProjectRule),
  spEntityId: Type.String({ description: 'our entity id, to register at the IdP (the metadata address)' }),
  acsUrl: Type.String({
    description: 'the assertion consumer service address (HTTP-POST), to register at the IdP',
  }),
  metadataUrl: Type.String({ description: 'our SP metadata, for IdPs that read it' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type SamlProvider = Static<typeof SamlProvider>;

export const SamlProviderList = Type.Object({ providers: Type.Array(SamlProvider) });

export const SamlProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 64 }) });

export const AcsBody = Type.Object(
  {
    SAMLResponse: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    RelayState: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: true },
);
