import {
  ENTERPRISE_USER_SCHEMA,
  GROUP_SCHEMA,
  LIST_SCHEMA,
  MAX_COUNT,
  USER_SCHEMA,
} from './scim.protocol.js';

/* RFC 7644 §4: what the service provider supports, its resource types and their schemas (what Casebook keeps). */

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export const serviceProviderConfig = (base: string) => ({
  schemas: [SPC_SCHEMA],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: "A Casebook API key of kind scim, made by the tenant's owner",
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const resourceTypeList = (base: string) => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  },
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
  },
];

export const resourceTypes = (base: string) => {
  const list = resourceTypeList(base);
  return {
    schemas: [LIST_SCHEMA],
    totalResults: list.length,
    startIndex: 1,
    itemsPerPage: list.length,
    Resources: list,
  };
};

const attr = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const schemaList = (base: string) => [
  {
    schemas: [SCHEMA_SCHEMA],
    id: USER_SCHEMA,
    name: 'User',
    attributes: [
      attr('userName', { required: true, uniqueness: 'server' }),
      attr('externalId', { caseExact: true }),
      attr('name', {
        type: 'complex',
        subAttributes: [attr('formatted'), attr('givenName'), attr('familyName')],
      }),
      attr('displayName'),
      attr('emails', {
        type: 'complex',
        multiValued: true,
        subAttributes: [attr('value'), attr('type'), attr('primary', { type: 'boolean' })],
      }),
      attr('active', { type: 'boolean' }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  },
  {
    schemas: [SCHEMA_SCHEMA],
    id: GROUP_SCHEMA,
    name: 'Group',
    attributes: [
      attr('displayName', { required: true, uniqueness: 'server' }),
      attr('externalId', { caseExact: true }),
      attr('members', {
        type: 'complex',
        multiValued: true,
        subAttributes: [
          attr('value', { mutability: 'immutable' }),
          attr('display', { mutability: 'readOnly' }),
        ],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
  },
];

export const schemas = (base: string) => {
  const list = schemaList(base);
  return {
    schemas: [LIST_SCHEMA],
    totalResults: list.length,
    startIndex: 1,
    itemsPerPage: list.length,
    Resources: list,
  };
};

/** One resource type or schema by id, undefined when there is none (404). */
export const resourceTypeById = (base: string, id: string) => resourceTypeList(base).find((r) => r.id === id);
export const schemaById = (base: string, id: string) => schemaList(base).find((s) => s.id === id);
