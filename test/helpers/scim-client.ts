import type { TestEnv } from './test-app.js';

/** A SCIM client: `Authorization: Bearer` and `application/scim+json`, as Okta and Entra ID send them. */
export function scimClient(t: TestEnv, token: () => string) {
  return (method: string, path: string, body?: unknown, bearer = token()) =>
    t.request(method, `/scim/v2${path}`, {
      key: null,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json; charset=utf-8' }),
      },
    });
}
