import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';

/** The parameters of an app's authorization request, as its sign-in link carries them. */
export interface AuthorizationParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  resource?: string;
  scope?: string;
}

export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
  'scope',
] as const;

/** The request as the page shows it: the app's name and the origin it sends the person back to. */
export const authorizationQuery = (params: AuthorizationParams) =>
  queryOptions({
    queryKey: queryKeys.oauthAuthorization(params),
    queryFn: () => unwrap(api.GET('/api/oauth/authorize/request', { params: { query: params } })),
    retry: false,
  });

export const decideAuthorization = (params: AuthorizationParams, decision: 'approve' | 'deny') =>
  unwrap(api.POST(`/api/oauth/authorize/${decision}`, { body: params }));
