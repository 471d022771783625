import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const settingsKeys = {
  twoFactor: ['me', '2fa'] as const,
  apiKeys: ['me', 'api-keys'] as const,
};

export const twoFactorQuery = queryOptions({
  queryKey: settingsKeys.twoFactor,
  queryFn: () => unwrap(api.GET('/api/public/v0/users/me/2fa')),
});

export const apiKeysQuery = queryOptions({
  queryKey: settingsKeys.apiKeys,
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/me/api-keys'))).apiKeys,
});

export type ApiKey = Awaited<ReturnType<typeof apiKeysQuery.queryFn & {}>>[number];
