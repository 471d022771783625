import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateApiSchema, SCHEMA_FILE } from '../../web/scripts/api-schema.js';

describe('the web application API types', () => {
  it('match the OpenAPI document the service produces now (else: npm run web:api)', async () => {
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    const fresh = await generateApiSchema();
    // One boolean, not a 900 KB diff, when stale.
    expect(committed === fresh, 'web/src/api/schema.d.ts is stale: run `npm run web:api` and commit it').toBe(
      true,
    );
  });

  it('include the web application private API (sign-in) and the public API', async () => {
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    for (const route of [
      '"/api/auth/login"',
      '"/api/auth/logout"',
      '"/api/public/v0/users/me"',
      '"/api/public/v0/project"',
    ]) {
      expect(committed).toContain(route);
    }
  });
});
