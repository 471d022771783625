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
  /** The device sign-in (api_keys row) the token refreshes. */
  authorization_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface OAuthTables {
  oauth_device_codes: OAuthDeviceCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
}
