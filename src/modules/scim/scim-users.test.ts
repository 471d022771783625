import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows } from '../../../test/helpers/factories.js';
import { scimClient } from '../../../test/helpers/scim-client.js';
import { hashPassword } from '../../lib/crypto.js';
import { createApiKey, createDeviceKey } from '../api-keys/api-keys.service.js';
import { getUser, setPasswordHash } from '../users/users.service.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const metaOf = (row: { meta: string | null }) => JSON.parse(row.meta ?? '{}');

describeEachDb('SCIM 2.0 Users (/scim/v2)', (t) => {
  let token: string;
  let keyId: string;
  const scim = scimClient(t, () => token);

  beforeAll(async () => {
    ({ key: token, id: keyId } = await createApiKey(t.db, t.tenantId, {
      userId: t.ownerId,
      name: 'Okta provisioning',
      kind: 'scim',
    }));
  });

  describe('authentication', () => {
    it('answers 401 in SCIM error shape without a key, 403 to an ordinary key, and the SCIM key 403 on the API', async () => {
      const none = await t.request('GET', '/scim/v2/Users', { key: null });
      expect(none.status).toBe(401);
      expect(none.headers['content-type']).toContain('application/scim+json');
      expect(none.body).toMatchObject({ schemas: [ERROR], status: '401' });
      expect((await scim('GET', '/Users', undefined, t.ownerKey)).status).toBe(403);
      const api = await t.get('/project', { key: token });
      expect(api.status).toBe(403);
      expect(api.body.message).toContain('/scim/v2');
    });

    it('makes a SCIM key only for the owner, signed in, and lists it with its kind', async () => {
      const list = await t.get('/api-keys');
      expect(list.body.apiKeys.find((k: { id: string }) => k.id === keyId)).toMatchObject({ kind: 'scim' });
    });

    it('describes itself: ServiceProviderConfig, ResourceTypes and Schemas', async () => {
      const spc = await scim('GET', '/ServiceProviderConfig');
      expect(spc.status).toBe(200);
      expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
      expect((await scim('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id)).toEqual([
        'User',
        'Group',
      ]);
      const schema = await scim('GET', `/Schemas/${USER}`);
      expect(schema.body.attributes.map((a: { name: string }) => a.name)).toContain('userName');
    });
  });

  describe("Okta's documented user provisioning", () => {
    let id: string;

    it('finds no one, creates the person with the default role, reads and replaces them, audited with the contract meta', async () => {
      const lookup = await scim(
        'GET',
        '/Users?filter=userName%20eq%20%22ada%40example.com%22&startIndex=1&count=100',
      );
      expect(lookup.status).toBe(200);
      expect(lookup.body).toMatchObject({ totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

      const created = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'ada@example.com',
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        emails: [{ primary: true, value: 'ada@example.com', type: 'work' }],
        displayName: 'Ada Lovelace',
        locale: 'en-US',
        externalId: '00u1ada',
        groups: [],
        password: 'ignored-by-casebook',
        active: true,
      });
      expect(created.status, created.text).toBe(201);
      id = created.body.id;
      expect(created.headers.location).toMatch(new RegExp(`/scim/v2/Users/${id}$`));
      expect(created.body).toMatchObject({
        userName: 'ada@example.com',
        externalId: '00u1ada',
        active: true,
      });
      const stored = await getUser(t.db, t.tenantId, Number(id));
      expect(stored).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', role: 'test-runner' });
      const [event] = await auditRows(t, 'scim.user_create');
      expect(metaOf(event)).toEqual({ userName: 'ada@example.com', apiKeyId: keyId, externalId: '00u1ada' });

      expect((await scim('GET', `/Users/${id}`)).body).toMatchObject({ id, name: { givenName: 'Ada' } });
      const found = await scim('GET', '/Users?filter=userName%20eq%20%22ADA%40example.com%22');
      expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);

      const put = await scim('PUT', `/Users/${id}`, {
        schemas: [USER],
        id,
        userName: 'ada@example.com',
        name: { givenName: 'Ada', familyName: 'King' },
        emails: [{ primary: true, value: 'ada@example.com', type: 'work' }],
        externalId: '00u1ada',
        active: true,
      });
      expect(put.status).toBe(200);
      expect((await getUser(t.db, t.tenantId, Number(id))).name).toBe('Ada King');
      expect((await auditRows(t, 'scim.user_update')).map(metaOf)).toEqual([
        { userName: 'ada@example.com', apiKeyId: keyId, externalId: '00u1ada' },
      ]);
    });

    it('answers 409 uniqueness for the same userName again', async () => {
      const again = await scim('POST', '/Users', { schemas: [USER], userName: 'ADA@example.com' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
    });

    it('deactivates with PATCH active false: sessions, device sign-ins and API keys end at once', async () => {
      await setPasswordHash(t.db, t.tenantId, Number(id), await hashPassword('ada-password-1'));
      const login = await t.post(
        '/api/auth/login',
        { email: 'ada@example.com', password: 'ada-password-1' },
        { key: null },
      );
      expect(login.status).toBe(200);
      const device = await createDeviceKey(t.db, t.tenantId, {
        userId: Number(id),
        clientId: 'qas-cli',
        clientName: 'CLI',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const apiKey = await createApiKey(t.db, t.tenantId, { userId: Number(id), name: 'ci' });
      expect((await t.get('/users/me', { key: apiKey.key })).status).toBe(200);

      const off = await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
      expect((await getUser(t.db, t.tenantId, Number(id))).active).toBe(false);
      const cookie = { cookie: `session=${login.body.token}` };
      expect((await t.get('/users/me', { key: null, headers: cookie })).status).toBe(401);
      expect((await t.get('/users/me', { key: apiKey.key })).status).toBe(401);
      const deviceRow = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', device.id)
        .executeTakeFirstOrThrow();
      expect(deviceRow.revoked_at).not.toBeNull();
      expect((await auditRows(t, 'scim.user_deactivate')).map(metaOf)).toEqual([
        { userName: 'ada@example.com', apiKeyId: keyId, externalId: '00u1ada' },
      ]);
    });
  });

  describe("Microsoft Entra ID's documented user provisioning", () => {
    let id: string;

    it('creates after two empty lookups, then applies Replace and Add with Entra paths', async () => {
      const byExternal = await scim('GET', '/Users?filter=externalId%20eq%20%22e7b1%22');
      expect(byExternal.body.totalResults).toBe(0);
      const created = await scim('POST', '/Users', {
        schemas: [USER, ENTERPRISE],
        externalId: 'e7b1',
        userName: 'grace@contoso.example',
        active: true,
        emails: [{ primary: true, type: 'work', value: 'grace@contoso.example' }],
        meta: { resourceType: 'User' },
        name: { formatted: 'Grace Hopper', familyName: 'Hopper', givenName: 'Grace' },
        roles: [],
        [ENTERPRISE]: { department: 'QA' },
      });
      expect(created.status, created.text).toBe(201);
      id = created.body.id;

      const patched = await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'grace.hopper@contoso.example' },
          { op: 'Replace', path: 'name.givenName', value: 'Amazing Grace' },
          { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Navy QA' },
          { op: 'Replace', value: { displayName: 'Grace H.', 'name.familyName': 'Hopper' } },
        ],
      });
      expect(patched.status, patched.text).toBe(200);
      const stored = await getUser(t.db, t.tenantId, Number(id));
      expect(stored).toMatchObject({ email: 'grace.hopper@contoso.example', name: 'Amazing Grace Hopper' });
      const byName = await scim(
        'GET',
        '/Users?filter=userName%20eq%20%22grace%40contoso.example%22%20and%20externalId%20eq%20%22e7b1%22',
      );
      expect(byName.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    });

    it('takes active as the string "False" and "True": deactivates, then reactivates, each audited', async () => {
      const off = await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      });
      expect(off.body.active).toBe(false);
      const on = await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      });
      expect(on.body.active).toBe(true);
      expect((await getUser(t.db, t.tenantId, Number(id))).active).toBe(true);
      const [event] = await auditRows(t, 'scim.user_reactivate');
      expect(metaOf(event)).toEqual({
        userName: 'grace@contoso.example',
        apiKeyId: keyId,
        externalId: 'e7b1',
      });
    });

    it('deletes: 204, then 404; the person stays, deactivated', async () => {
      expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
      const gone = await scim('GET', `/Users/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ schemas: [ERROR], status: '404' });
      expect((await getUser(t.db, t.tenantId, Number(id))).active).toBe(false);
      expect(await auditRows(t, 'scim.user_delete')).toHaveLength(1);
    });
  });

  describe('refusals', () => {
    it('answers 400 invalidFilter for a filter that does not parse, and 400 invalidValue without userName', async () => {
      const bad = await scim('GET', '/Users?filter=userName%20eq');
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
      const missing = await scim('POST', '/Users', { schemas: [USER], emails: [{ value: 'x@example.com' }] });
      expect(missing.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    });

    it('never deactivates the owner (403), who keeps working', async () => {
      const res = await scim('PATCH', `/Users/${t.ownerId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain('owner');
      expect((await scim('DELETE', `/Users/${t.ownerId}`)).status).toBe(403);
      expect((await t.get('/users/me')).status).toBe(200);
    });

    it('pages with startIndex and count', async () => {
      const page = await scim('GET', '/Users?startIndex=2&count=1');
      expect(page.body).toMatchObject({ startIndex: 2, itemsPerPage: 1 });
      expect(page.body.totalResults).toBeGreaterThanOrEqual(2);
    });
  });
});
