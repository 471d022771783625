/** Kysely table types of the device sign-in (`qasphere auth login`, RFC 8628) (migration 0009_oauth_device). */

export interface OAuthDeviceCodesTable {
  id: string;
  tenant_id: string;
  client_id: string;
  /** sha256 of the device code the client polls with. */
  device_code_hash: string;
  /** sha256 of the user code, normalised (upper case, no dash). */
  user_code_hash: string;
  status: 'pending' | 'approved' | 'denied' | 'redeemed';
  user_id: number | null;
  /** Seconds the client must wait between polls; grows by 5 with every `slow_down`. */
  interval_seconds: number;
  last_polled_at: string | null;
  /** The api_keys row the tokens were issued as, once redeemed. */
  authorization_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface OAuthRefreshTokensTable {
  id: string;
  tenant_id: string;
  /** The device or OAuth sign-in (api_keys row) the token refreshes. */
  authorization_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A client registered through RFC 7591 (migration 0038_oauth_clients_additive): public, no secret. */
export interface OAuthClientsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** JSON array of the exact redirect URIs it registered. */
  redirect_uris: string;
  created_at: string;
}

/** An authorization code a person approved (authorization code grant with PKCE); used once, lives minutes. */
export interface OAuthAuthorizationCodesTable {
  id: string;
  tenant_id: string;
  client_id: string;
  code_hash: string;
  user_id: number;
  redirect_uri: string;
  /** base64url sha256 of the client's code_verifier (S256 only). */
  code_challenge: string;
  resource: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The api_keys row the code was redeemed for. */
  authorization_id: string | null;
}

/** The tenant's rule for which registered clients may be approved. */
export interface OAuthClientPoliciesTable {
  tenant_id: string;
  /** JSON array of origins; null: any registered client. */
  allowed_origins: string | null;
  updated_at: string;
}

export interface OAuthTables {
  oauth_device_codes: OAuthDeviceCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_codes: OAuthAuthorizationCodesTable;
  oauth_client_policies: OAuthClientPoliciesTable;
}
