import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';

/** The device sign-in a code names, checked before the person approves or denies it. */
export const deviceCodeQuery = (userCode: string) =>
  queryOptions({
    queryKey: queryKeys.deviceCode(userCode),
    queryFn: () => unwrap(api.GET('/api/oauth/device', { params: { query: { user_code: userCode } } })),
    retry: false,
  });

export const decideDeviceSignIn = (userCode: string, decision: 'approve' | 'deny') =>
  unwrap(api.POST(`/api/oauth/device/${decision}`, { body: { user_code: userCode } }));
