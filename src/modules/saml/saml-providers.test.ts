import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, userWithKey } from '../../../test/helpers/factories.js';
import { keyAndCertificate, startSamlIdp, type TestSamlIdp } from '../../../test/helpers/saml-idp.js';

describeEachDb('SAML providers (/saml-provider, admin)', (t) => {
  let idp: TestSamlIdp;
  const body = (over: Record<string, unknown> = {}) => ({
    name: 'Okta',
    idpEntityId: 'http://www.okta.com/exk1',
    ssoUrl: 'https://corp.okta.com/app/casebook/sso/saml',
    idpCertificate: idp.certificate,
    ...over,
  });
  const count = async () =>
    Number(
      (
        await t.db
          .selectFrom('saml_providers')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    idp = await startSamlIdp();
  });
  afterAll(async () => {
    await idp?.close();
  });

  describe('POST /saml-provider', () => {
    it('answers 201 with the provider, our SP addresses and defaults (off, no IdP-initiated); audits saml.provider_create', async () => {
      const project = await t.post('/project', { code: 'SAMLP', title: 'Providers' });
      const res = await t.post(
        '/saml-provider',
        body({
          name: 'Okta QA',
          roleRules: [{ group: 'qa-leads', role: 'admin' }],
          projectRules: [{ group: 'qa', projects: ['SAMLP'] }],
        }),
      );
      expect(res.status, res.text).toBe(201);
      const base = `http://casebook.test/api/auth/saml/${res.body.id}`;
      expect(res.body).toMatchObject({
        name: 'Okta QA',
        idpEntityId: 'http://www.okta.com/exk1',
        ssoUrl: 'https://corp.okta.com/app/casebook/sso/saml',
        enabled: false,
        allowIdpInitiated: false,
        justInTime: false,
        defaultRole: 'test-runner',
        emailAttribute: 'email',
        nameAttribute: 'name',
        groupsAttribute: 'groups',
        roleRules: [{ group: 'qa-leads', role: 'admin' }],
        projectRules: [{ group: 'qa', projectIds: [project.body.id] }],
        spEntityId: `${base}/metadata`,
        acsUrl: `${base}/acs`,
        metadataUrl: `${base}/metadata`,
      });
      expect(res.body.idpCertificate).toContain('-----BEGIN CERTIFICATE-----');
      const [event] = await auditRows(t, 'saml.provider_create');
      expect(JSON.parse(event!.meta!)).toMatchObject({ provider_id: res.body.id, provider_name: 'Okta QA' });
    });

    it('reads the entity id, the HTTP-Redirect sign-on address and the signing certificate from uploaded metadata', async () => {
      const res = await t.post('/saml-provider', { name: 'From metadata', idpMetadataXml: idp.metadata() });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ idpEntityId: idp.entityId, ssoUrl: idp.ssoUrl });
      const strip = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
      expect(strip(res.body.idpCertificate)).toBe(strip(idp.certificate));
    });

    it('answers 400 and stores nothing for a bad certificate, URL, metadata, missing IdP fields, an owner rule or an unknown field', async () => {
      const before = await count();
      const { key } = keyAndCertificate();
      const cases: [Record<string, unknown>, string][] = [
        [body({ idpCertificate: 'not a certificate' }), '/idpCertificate'],
        [body({ idpCertificate: key }), '/idpCertificate'],
        [body({ ssoUrl: 'not a url' }), '/ssoUrl'],
        [body({ ssoUrl: 'javascript:alert(1)' }), '/ssoUrl'],
        [body({ ssoUrl: 'https://user:pw@idp.example/sso' }), '/ssoUrl'],
        [body({ idpEntityId: '  ' }), '/idpEntityId'],
        [body({ idpCertificate: undefined }), '/idpCertificate'],
        [body({ ssoUrl: undefined }), '/ssoUrl'],
        [{ name: 'Only metadata', idpMetadataXml: '<md:EntityDescriptor' }, '/idpMetadataXml'],
        [
          { name: 'Doctype', idpMetadataXml: '<!DOCTYPE x [<!ENTITY a "b">]><EntityDescriptor/>' },
          '/idpMetadataXml',
        ],
        [{ name: 'No IdP', idpMetadataXml: '<EntityDescriptor entityID="x"/>' }, '/idpMetadataXml'],
        [body({ name: '   ' }), '/name'],
        [body({ roleRules: [{ group: 'x', role: 'owner' }] }), '/roleRules/0/role'],
        [body({ projectRules: [{ group: 'x', projects: ['NOPE'] }] }), '/projectRules/0/projects/0'],
        [body({ surprise: true }), ''],
      ];
      for (const [input, path] of cases) {
        const res = await t.post('/saml-provider', input);
        expect(res.status, JSON.stringify(input).slice(0, 200)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        if (path)
          expect(JSON.stringify(res.body.details), JSON.stringify(input).slice(0, 200)).toContain(path);
      }
      expect(await count()).toBe(before);
    });

    it('answers 409 for a name taken in any letter case', async () => {
      expect((await t.post('/saml-provider', body({ name: 'Taken' }))).status).toBe(201);
      const res = await t.post('/saml-provider', body({ name: 'TAKEN' }));
      expect(res.status).toBe(409);
    });
  });

  describe('PATCH and DELETE /saml-provider/{id}', () => {
    it('changes only the given fields, audits what changed, and refuses a bad certificate changing nothing', async () => {
      const made = await t.post('/saml-provider', body({ name: 'To change' }));
      const bad = await t.patch(`/saml-provider/${made.body.id}`, { idpCertificate: 'nope', enabled: true });
      expect(bad.status).toBe(400);
      expect((await t.get(`/saml-provider/${made.body.id}`)).body.enabled).toBe(false);
      const res = await t.patch(`/saml-provider/${made.body.id}`, {
        enabled: true,
        allowIdpInitiated: true,
        groupsAttribute: 'memberOf',
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ enabled: true, allowIdpInitiated: true, groupsAttribute: 'memberOf' });
      const events = await auditRows(t, 'saml.provider_update');
      expect(JSON.parse(events.at(-1)!.meta!)).toEqual({
        provider_id: made.body.id,
        provider_name: 'To change',
        enabled: 1,
        allow_idp_initiated: 1,
        groups_attribute: 'memberOf',
      });
    });

    it('answers 200, then 404; audits saml.provider_delete', async () => {
      const made = await t.post('/saml-provider', body({ name: 'To delete' }));
      expect((await t.del(`/saml-provider/${made.body.id}`)).status).toBe(200);
      expect((await t.get(`/saml-provider/${made.body.id}`)).status).toBe(404);
      expect((await t.del(`/saml-provider/${made.body.id}`)).status).toBe(404);
      const [event] = await auditRows(t, 'saml.provider_delete');
      expect(JSON.parse(event!.meta!)).toMatchObject({
        provider_id: made.body.id,
        provider_name: 'To delete',
      });
    });
  });

  describe('who may', () => {
    it('answers 403 to a user below admin on every route and 200 to an admin', async () => {
      const made = await t.post('/saml-provider', body({ name: 'Roles' }));
      const user = await userWithKey(t, 'user');
      for (const [method, path] of [
        ['GET', '/saml-provider'],
        ['POST', '/saml-provider'],
        ['GET', `/saml-provider/${made.body.id}`],
        ['PATCH', `/saml-provider/${made.body.id}`],
        ['DELETE', `/saml-provider/${made.body.id}`],
      ] as const) {
        const res = await t.request(method, path, {
          key: user.key,
          body:
            method === 'POST' ? body({ name: 'Mine' }) : method === 'PATCH' ? { enabled: true } : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
      const admin = await userWithKey(t, 'admin');
      const list = await t.get('/saml-provider', { key: admin.key });
      expect(list.status).toBe(200);
      expect(list.body.providers.map((p: { name: string }) => p.name)).toContain('Roles');
      expect((await t.get('/saml-provider', { key: null })).status).toBe(401);
    });
  });
});
