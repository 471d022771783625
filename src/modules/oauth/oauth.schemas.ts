import { Type } from 'typebox';

export const CheckTenantQuery = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255, description: 'The team (tenant) name or id' }) },
  { additionalProperties: false },
);

export const CheckTenantAnswer = Type.Object({
  redirectUrl: Type.String({ description: "The tenant's address + `/login`; the CLI uses its origin" }),
  suspended: Type.Boolean(),
});

/** RFC 8628 §3.1; JSON or form-encoded. `scope` is accepted and ignored: a sign-in acts with the user's role. */
export const DeviceCodeBody = Type.Object(
  {
    client_id: Type.String({ maxLength: 255, description: 'A known client: `qas-cli`' }),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const DeviceCodeAnswer = Type.Object({
  device_code: Type.String(),
  user_code: Type.String({ description: '`XXXX-XXXX`, consonants only' }),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds (900)' }),
  interval: Type.Integer({ description: 'Seconds between polls (5)' }),
});

/** RFC 8628 §3.4 (device code), RFC 6749 §4.1.3 with RFC 7636 (code + PKCE) and §6 (refresh); JSON or form. */
export const TokenBody = Type.Object(
  {
    grant_type: Type.String({
      maxLength: 255,
      description: '`urn:ietf:params:oauth:grant-type:device_code`, `authorization_code` or `refresh_token`',
    }),
    client_id: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'Required with the device code and the authorization code',
      }),
    ),
    device_code: Type.Optional(Type.String({ maxLength: 255 })),
    refresh_token: Type.Optional(Type.String({ maxLength: 255 })),
    code: Type.Optional(Type.String({ maxLength: 255 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
    code_verifier: Type.Optional(Type.String({ maxLength: 255 })),
    resource: Type.Optional(
      Type.String({ maxLength: 2000, description: 'RFC 8707: `<origin>/api/mcp` when given' }),
    ),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const TokenAnswer = Type.Object({
  access_token: Type.String({
    description: 'Use as `Authorization: Bearer <token>`; an API key of the user',
  }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds (3600)' }),
  refresh_token: Type.String({ description: 'Single use; a second use revokes the sign-in' }),
  refresh_token_expires_in: Type.Integer({ description: 'Seconds (90 days, from this refresh)' }),
});

/** RFC 6749 §5.2 and D7 in one body. */
export const OAuthErrorBody = Type.Object({
  error: Type.String({
    description:
      'authorization_pending | slow_down | access_denied | expired_token | invalid_request | invalid_client | invalid_grant | unsupported_grant_type | invalid_target | invalid_redirect_uri | invalid_client_metadata',
  }),
  error_description: Type.String(),
  message: Type.String(),
  code: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
});

export const UserCodeQuery = Type.Object(
  { user_code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const UserCodeBody = Type.Object(
  { user_code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const DeviceCodeView = Type.Object({
  userCode: Type.String(),
  clientId: Type.String(),
  clientName: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('denied'),
    Type.Literal('expired'),
  ]),
  expiresAt: Type.String(),
});
