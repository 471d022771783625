import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, ownerActor, userWithKey } from '../../../test/helpers/factories.js';
import { createApiKey, createKeyAs } from '../api-keys/api-keys.service.js';
import { getUser } from '../users/users.service.js';
import { scimClient } from '../../../test/helpers/scim-client.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describeEachDb('SCIM 2.0 Groups (/scim/v2)', (t) => {
  let token: string;
  const scim = scimClient(t, () => token);
  const person = async (userName: string) => {
    const res = await scim('POST', '/Users', { schemas: [USER], userName, active: true });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const roleOf = async (id: string) => (await getUser(t.db, t.tenantId, Number(id))).role;
  const members = async (groupId: string) =>
    ((await scim('GET', `/Groups/${groupId}`)).body.members ?? []).map((m: { value: string }) => m.value);

  beforeAll(async () => {
    ({ key: token } = await createApiKey(t.db, t.tenantId, { userId: t.ownerId, name: 'IdP', kind: 'scim' }));
  });

  it('makes SCIM keys for the owner only: an admin gets 403 and a key for someone else is 400', async () => {
    const admin = await userWithKey(t, 'admin');
    const asAdmin = { ...ownerActor(t), userId: admin.user.id, role: 'admin' as const };
    await expect(createKeyAs(t.db, asAdmin, { name: 'IdP', kind: 'scim' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      createKeyAs(t.db, ownerActor(t), { name: 'IdP', kind: 'scim', userId: admin.user.id }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  describe("Okta's documented group push", () => {
    let groupId: string;
    let ann: string;
    let bob: string;

    it('creates a group, adds members who take its mapped role, renames it, removes one, deletes it', async () => {
      ann = await person('ann@example.com');
      bob = await person('bob@example.com');
      const created = await scim('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'casebook-admin',
        members: [],
      });
      expect(created.status, created.text).toBe(201);
      groupId = created.body.id;
      expect(created.body).toMatchObject({ displayName: 'casebook-admin', members: [] });

      const add = await scim('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'add', path: 'members', value: [{ value: ann, display: 'ann@example.com' }, { value: bob }] },
        ],
      });
      expect(add.status, add.text).toBe(200);
      expect(await members(groupId)).toEqual([ann, bob]);
      expect([await roleOf(ann), await roleOf(bob)]).toEqual(['admin', 'admin']);

      const remove = await scim('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'remove', path: `members[value eq "${bob}"]` }],
      });
      expect(remove.status).toBe(200);
      expect(await members(groupId)).toEqual([ann]);
      expect(await roleOf(bob)).toBe('test-runner');

      const rename = await scim('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { id: groupId, displayName: 'QA leads' } }],
      });
      expect(rename.body.displayName).toBe('QA leads');
      expect(await roleOf(ann)).toBe('test-runner');

      expect((await scim('DELETE', `/Groups/${groupId}`)).status).toBe(204);
      expect((await scim('GET', `/Groups/${groupId}`)).status).toBe(404);
      const actions = ['scim.group_create', 'scim.group_update', 'scim.group_delete'];
      const counts = await Promise.all(actions.map(async (a) => (await auditRows(t, a)).length));
      expect(counts).toEqual([1, 3, 1]);
      const [roleChange] = await auditRows(t, 'scim.user_role_change');
      expect(JSON.parse(roleChange.meta!)).toMatchObject({ userId: Number(ann), role: 'admin' });
    });

    it('answers 409 uniqueness for a displayName taken in another letter case', async () => {
      await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Testers' });
      const again = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'testers' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ schemas: [ERROR], scimType: 'uniqueness' });
    });
  });

  describe("Microsoft Entra ID's documented group provisioning", () => {
    it('finds by displayName, adds and removes members with capitalised ops, lists without members', async () => {
      const cy = await person('cy@contoso.example');
      const lookup = await scim(
        'GET',
        '/Groups?excludedAttributes=members&filter=displayName%20eq%20%22casebook-viewer%22',
      );
      expect(lookup.body.totalResults).toBe(0);
      const created = await scim('POST', '/Groups', {
        schemas: [GROUP],
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayName: 'casebook-viewer',
        meta: { resourceType: 'Group' },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      await scim('PATCH', `/Groups/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Add', path: 'members', value: [{ value: cy }] }],
      });
      expect(await roleOf(cy)).toBe('test-runner');
      const found = await scim(
        'GET',
        '/Groups?excludedAttributes=members&filter=externalId%20eq%20%228aa1a0c0-c4c3-4bc0-b4a5-2ef676900159%22',
      );
      expect(found.body.Resources).toHaveLength(1);
      expect(found.body.Resources[0].members).toBeUndefined();
      expect(await members(id)).toEqual([cy]);

      const removed = await scim('PATCH', `/Groups/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Remove', path: 'members', value: [{ value: cy }] }],
      });
      expect(removed.status).toBe(200);
      expect(await members(id)).toEqual([]);
    });

    it('answers 400 invalidValue for a member that is not a User', async () => {
      const res = await scim('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'Ghosts',
        members: [{ value: '999999' }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ scimType: 'invalidValue' });
    });
  });
});
