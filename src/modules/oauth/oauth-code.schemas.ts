import { Type } from 'typebox';

const text = (maxLength: number, description?: string) =>
  Type.Optional(Type.String({ maxLength, ...(description ? { description } : {}) }));

/** RFC 7591 §2: client metadata. Fields it does not use are accepted and ignored, as §2 asks. */
export const RegisterBody = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: 10,
      description: 'https, or http on 127.0.0.1, [::1] or localhost (any port)',
    }),
    client_name: text(1000, 'Shown to people on the approval page (cut to 100 characters)'),
    token_endpoint_auth_method: text(100, 'Only `none`: public clients'),
    grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
    response_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
  },
  { additionalProperties: true },
);

export const RegisteredClient = Type.Object({
  client_id: Type.String(),
  client_id_issued_at: Type.Integer(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Literal('none'),
});

/** The authorization request's parameters (query string of the authorize endpoint, body of approve and deny). */
const requestFields = {
  response_type: text(100),
  client_id: text(255),
  redirect_uri: text(2000),
  code_challenge: text(200),
  code_challenge_method: text(100),
  state: text(2000),
  resource: text(2000),
  scope: text(1000),
};
export const AuthorizationQuery = Type.Object(requestFields, { additionalProperties: true });
export const AuthorizationDecisionBody = Type.Object(requestFields, { additionalProperties: false });

export const AuthorizationView = Type.Object({
  clientId: Type.String(),
  clientName: Type.String(),
  redirectUri: Type.String(),
  redirectOrigin: Type.String({ description: "Where the browser goes after deciding: the client's origin" }),
  allowed: Type.Boolean({ description: "Whether the tenant's rule lets people approve this client" }),
  error: Type.Optional(Type.String()),
  errorDescription: Type.Optional(Type.String()),
});

export const DecisionAnswer = Type.Object({
  redirectTo: Type.String({ description: "The client's redirect URI with `code` (or `error`) and `state`" }),
});

/** RFC 7009 §2.1. */
export const RevokeBody = Type.Object(
  {
    token: text(1000),
    token_type_hint: text(100),
    client_id: text(255),
  },
  { additionalProperties: false },
);

export const ClientPolicy = Type.Object({
  allowedOrigins: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description:
      'null: any registered client may be approved; else only those sending people back to these origins',
  }),
  updatedAt: Type.Union([Type.String(), Type.Null()]),
});

export const ClientPolicyBody = Type.Object(
  {
    allowedOrigins: Type.Union([Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const ClientList = Type.Object({
  policy: ClientPolicy,
  clients: Type.Array(
    Type.Object({
      clientId: Type.String(),
      clientName: Type.String(),
      redirectUris: Type.Array(Type.String()),
      createdAt: Type.String(),
      liveSignIns: Type.Integer(),
      allowed: Type.Boolean(),
    }),
  ),
});
