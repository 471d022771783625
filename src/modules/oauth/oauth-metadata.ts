import { DEVICE_CODE_GRANT } from './oauth.service.js';

/** RFC 9728: /api/mcp is a protected resource whose authorization server is this service, at the same origin. */
export function protectedResourceMetadata(origin: string) {
  return {
    resource: `${origin}/api/mcp`,
    authorization_servers: [origin],
    bearer_methods_supported: ['header'],
    resource_name: 'Casebook (QA Sphere API) MCP server',
    resource_documentation: `${origin}/docs`,
  };
}

/** RFC 8414: what a client needs to sign a person in: PKCE S256 only, public clients, registration open. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/api/oauth/authorize`,
    token_endpoint: `${origin}/api/oauth/token`,
    registration_endpoint: `${origin}/api/oauth/register`,
    revocation_endpoint: `${origin}/api/oauth/revoke`,
    device_authorization_endpoint: `${origin}/api/oauth/device/code`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    service_documentation: `${origin}/docs`,
  };
}
