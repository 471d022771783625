import type { Selectable } from 'kysely';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { SamlProvidersTable } from '../../db/tables/saml.js';
import { spAddresses } from './saml-providers.service.js';

/** How far the IdP's clock may be from ours for NotBefore and NotOnOrAfter. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * The service provider for one IdP, built per request from its row (node-saml keeps no state here: request ids live
 * in saml_requests, assertion ids in saml_assertions). Assertions must be signed by the pinned certificate (a signed
 * response alone is not enough), for our entity id as the audience, within the clock skew. InResponseTo, recipient,
 * destination and replay are checked by saml-sign-in.service.ts, against the database.
 */
export function serviceProvider(
  row: Selectable<SamlProvidersTable>,
  origin: string,
  requestId?: string,
): SAML {
  const { spEntityId, acsUrl } = spAddresses(origin, row.id);
  return new SAML({
    callbackUrl: acsUrl,
    entryPoint: row.sso_url,
    issuer: spEntityId,
    audience: spEntityId,
    idpCert: row.idp_cert,
    idpIssuer: row.idp_entity_id,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.never,
    disableRequestedAuthnContext: true,
    identifierFormat: null,
    signatureAlgorithm: 'sha256',
    ...(requestId === undefined ? {} : { generateUniqueId: () => requestId }),
  });
}

/** Our SP metadata: entity id, the HTTP-POST assertion consumer, assertions wanted signed. */
export const spMetadata = (row: Selectable<SamlProvidersTable>, origin: string): string =>
  serviceProvider(row, origin).generateServiceProviderMetadata(null, null);
