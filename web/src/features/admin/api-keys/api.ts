import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';

/** Every API key and device sign-in of the service, revoked ones included (never their secrets). */
export const serviceApiKeysQuery = queryOptions({
  queryKey: queryKeys.serviceApiKeys(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/api-keys'))).apiKeys,
});

export type ServiceApiKey = Awaited<ReturnType<typeof serviceApiKeysQuery.queryFn & {}>>[number];

export const revokeServiceKey = (keyId: string) =>
  unwrap(api.DELETE('/api/public/v0/api-keys/{keyId}', { params: { path: { keyId } } }));

/** The apps registered to sign people in with OAuth, and the rule for which people may approve (admin). */
export const oauthClientsQuery = queryOptions({
  queryKey: queryKeys.oauthClients(),
  queryFn: () => unwrap(api.GET('/api/oauth/clients')),
});

export const saveClientRule = (allowedOrigins: string[] | null) =>
  unwrap(api.PUT('/api/oauth/client-policy', { body: { allowedOrigins } }));
