import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb, type ApiResponse, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows } from '../../../test/helpers/factories.js';
import { startSamlIdp, type ResponseOptions, type TestSamlIdp } from '../../../test/helpers/saml-idp.js';
import { createUser } from '../users/users.service.js';

/** The cookies an answer sets, by name. */
function cookiesOf(res: ApiResponse): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out: Record<string, string> = {};
  for (const line of lines) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    out[pair!.slice(0, at)] = pair!.slice(at + 1);
  }
  return out;
}

interface Provider {
  id: string;
  acsUrl: string;
  spEntityId: string;
}

describeEachDb('Sign-in through SAML 2.0 (/api/auth/saml)', (t: TestEnv) => {
  let idp: TestSamlIdp;
  let other: TestSamlIdp;
  let jit: Provider;
  let idpInitiated: Provider;
  let projectId: string;

  /** The start route: the AuthnRequest's ID (decoded from the redirect) and the browser cookie. */
  async function start(providerId: string, returnTo?: string) {
    const res = await t.request('GET', `/api/auth/saml/${providerId}/start`, {
      key: null,
      query: returnTo === undefined ? undefined : { returnTo },
    });
    expect(res.status, res.text).toBe(302);
    const to = new URL(String(res.headers.location));
    const xml = inflateRawSync(Buffer.from(to.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    return { res, to, xml, requestId: /\sID="([^"]+)"/.exec(xml)![1]!, cookie: cookiesOf(res).saml_request };
  }

  /** Posts a SAMLResponse to the ACS as the browser would (form post), with the browser's cookie if any. */
  const post = (provider: Provider, samlResponse: string, cookie?: string) =>
    t.request('POST', `/api/auth/saml/${provider.id}/acs`, {
      key: null,
      body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '' }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie === undefined ? {} : { cookie: `saml_request=${cookie}` }),
      },
    });

  const base = (p: Provider): Pick<ResponseOptions, 'acsUrl' | 'audience'> => ({
    acsUrl: p.acsUrl,
    audience: p.spEntityId,
  });

  /** A whole SP-initiated sign-in with a response shaped by `shape`. */
  async function signIn(
    provider: Provider,
    person: ResponseOptions['person'],
    shape: (o: ResponseOptions) => string = (o) => idp.response(o),
    returnTo?: string,
  ) {
    const started = await start(provider.id, returnTo);
    const res = await post(
      provider,
      shape({ ...base(provider), person, inResponseTo: started.requestId }),
      started.cookie,
    );
    return { res, started };
  }

  const userByEmail = (email: string) =>
    t.db.selectFrom('users').selectAll().where('email_norm', '=', email).executeTakeFirst();
  const lastOutcome = async () => JSON.parse((await auditRows(t, 'saml.sign_in')).at(-1)!.meta!);

  beforeAll(async () => {
    idp = await startSamlIdp();
    other = await startSamlIdp();
    const project = await t.post('/project', { code: 'SAML', title: 'SAML sign-on' });
    expect(project.status).toBe(201);
    projectId = project.body.id;
    const made = await t.post('/saml-provider', {
      name: 'Company SAML',
      idpMetadataXml: idp.metadata(),
      enabled: true,
      justInTime: true,
      roleRules: [
        { group: 'qa-leads', role: 'admin' },
        { group: 'qa', role: 'user' },
      ],
      projectRules: [{ group: 'qa', projects: ['SAML'] }],
    });
    expect(made.status, made.text).toBe(201);
    jit = made.body;
    const second = await t.post('/saml-provider', {
      name: 'Portal SAML',
      idpEntityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      idpCertificate: idp.certificate,
      enabled: true,
      justInTime: true,
      allowIdpInitiated: true,
    });
    expect(second.status, second.text).toBe(201);
    idpInitiated = second.body;
  });

  afterAll(async () => {
    await idp?.close();
    await other?.close();
  });

  it('lists the enabled providers for the sign-in page and serves SP metadata at a stable address', async () => {
    const res = await t.get('/api/auth/saml/providers', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: { name: string }) => p.name)).toEqual(['Company SAML', 'Portal SAML']);
    const meta = await t.get(`/api/auth/saml/${jit.id}/metadata`, { key: null });
    expect(meta.status).toBe(200);
    expect(meta.headers['content-type']).toContain('application/samlmetadata+xml');
    expect(meta.text).toContain(`entityID="${jit.spEntityId}"`);
    expect(meta.text).toContain(`Location="${jit.acsUrl}"`);
    expect(meta.text).toContain('WantAssertionsSigned="true"');
  });

  it('sends the browser to the IdP with an AuthnRequest whose ID is stored, bound to this browser', async () => {
    const { to, xml, requestId, cookie } = await start(jit.id, '/project/SAML');
    expect(`${to.origin}${to.pathname}`).toBe(idp.ssoUrl);
    expect(xml).toContain(`AssertionConsumerServiceURL="${jit.acsUrl}"`);
    expect(xml).toContain(jit.spEntityId);
    expect(cookie).toBeTruthy();
    const row = await t.db
      .selectFrom('saml_requests')
      .selectAll()
      .where('id', '=', requestId)
      .executeTakeFirst();
    expect(row).toMatchObject({ provider_id: jit.id, return_to: '/project/SAML' });
    expect(row!.browser_hash).not.toBe(cookie);
  });

  it('signs in SP-initiated: a just-in-time account, the role from the groups attribute, the mapped projects, the session, returnTo', async () => {
    const person = {
      nameId: 'alice@corp.example',
      email: 'alice@corp.example',
      name: 'Alice Lead',
      groups: ['qa', 'qa-leads'],
    };
    const { res } = await signIn(jit, person, undefined, '/project/SAML?tab=runs');
    expect(res.status, res.text).toBe(303);
    expect(res.headers.location).toBe('/project/SAML?tab=runs');
    const session = cookiesOf(res).session;
    expect(session).toBeTruthy();
    const me = await t.get('/users/me', { key: null, headers: { cookie: `session=${session}` } });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: 'alice@corp.example', name: 'Alice Lead', role: 'admin' });
    const user = (await userByEmail('alice@corp.example'))!;
    expect(user.password_hash).toBeNull();
    const member = await t.db
      .selectFrom('project_members')
      .select('project_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(member.map((m) => m.project_id)).toEqual([projectId]);
    expect(
      await t.db.selectFrom('saml_identities').selectAll().where('user_id', '=', user.id).execute(),
    ).toMatchObject([{ provider_id: jit.id, subject: 'alice@corp.example' }]);
    expect(await auditRows(t, 'login', user.id)).toMatchObject([{ meta: null }]);
    const [event] = await auditRows(t, 'saml.sign_in', user.id);
    expect(JSON.parse(event!.meta!)).toEqual({
      provider_id: jit.id,
      provider_name: 'Company SAML',
      outcome: 'success',
      email: 'alice@corp.example',
      account_created: true,
      role: 'admin',
      project_ids: [projectId],
    });
  });

  it('takes a response signed as well as its assertion', async () => {
    const { res } = await signIn(jit, { nameId: 'both@corp.example', email: 'both@corp.example' }, (o) =>
      idp.response({ ...o, sign: 'both' }),
    );
    expect(res.status, res.text).toBe(303);
    expect(res.headers.location).toBe('/');
  });

  const refused = async (res: ApiResponse, word: string) => {
    expect(res.status, res.text).toBe(303);
    expect(String(res.headers.location)).toMatch(new RegExp(`^/sign-in\\?error=${word}(&|$)`));
    expect(cookiesOf(res).session).toBeUndefined();
    expect(await lastOutcome()).toMatchObject({ outcome: word });
  };

  it('refuses an unsigned assertion', async () => {
    const { res } = await signIn(
      jit,
      { nameId: 'unsigned@corp.example', email: 'unsigned@corp.example' },
      (o) => idp.response({ ...o, sign: 'none' }),
    );
    await refused(res, 'assertion_invalid');
    expect(await userByEmail('unsigned@corp.example')).toBeUndefined();
  });

  it('refuses a signed response whose assertion is not signed itself', async () => {
    const { res } = await signIn(jit, { nameId: 'resp@corp.example', email: 'resp@corp.example' }, (o) =>
      idp.response({ ...o, sign: 'response' }),
    );
    await refused(res, 'assertion_invalid');
  });

  it('refuses an assertion signed by another key than the pinned certificate', async () => {
    const { res } = await signIn(jit, { nameId: 'forged@corp.example', email: 'forged@corp.example' }, (o) =>
      other.response({ ...o, issuer: idp.entityId }),
    );
    await refused(res, 'assertion_invalid');
  });

  it('refuses signature wrapping (XSW): a forged assertion around the signed one', async () => {
    const { res } = await signIn(
      jit,
      { nameId: 'victim@corp.example', email: 'victim@corp.example' },
      (o) => {
        const xml = idp.responseXml(o);
        const signed = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)![0];
        const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed)![0];
        // The forged assertion carries the genuine signature (whose reference names the genuine ID) and hides the
        // genuine assertion in its Advice, where a careless verifier finds the signed element.
        const forged = signed
          .replace(signature, '')
          .replace(/ID="[^"]+"/, 'ID="_forged"')
          .replaceAll('victim@corp.example', 'mallory@corp.example')
          .replace('<saml:Subject>', `${signature}<saml:Subject>`)
          .replace('</saml:Assertion>', `<saml:Advice>${signed}</saml:Advice></saml:Assertion>`);
        return Buffer.from(xml.replace(signed, forged)).toString('base64');
      },
    );
    await refused(res, 'assertion_invalid');
    expect(await userByEmail('mallory@corp.example')).toBeUndefined();
  });

  it('refuses a second sibling assertion beside the signed one (XSW)', async () => {
    const { res } = await signIn(
      jit,
      { nameId: 'victim@corp.example', email: 'victim@corp.example' },
      (o) => {
        const xml = idp.responseXml(o);
        const signed = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)![0];
        const forged = signed
          .replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')
          .replace(/ID="[^"]+"/, 'ID="_forged"')
          .replaceAll('victim@corp.example', 'mallory@corp.example');
        return Buffer.from(xml.replace(signed, forged + signed)).toString('base64');
      },
    );
    await refused(res, 'assertion_invalid');
    expect(await userByEmail('mallory@corp.example')).toBeUndefined();
  });

  it('refuses a replayed assertion', async () => {
    const started = await start(jit.id);
    const saml = idp.response({
      ...base(jit),
      person: { nameId: 'replay@corp.example', email: 'replay@corp.example' },
      inResponseTo: started.requestId,
    });
    const first = await post(jit, saml, started.cookie);
    expect(first.status, first.text).toBe(303);
    expect(first.headers.location).toBe('/');
    const again = await post(jit, saml, started.cookie);
    await refused(again, 'assertion_replayed');
    const seen = await t.db
      .selectFrom('saml_assertions')
      .selectAll()
      .where('provider_id', '=', jit.id)
      .execute();
    expect(seen.length).toBeGreaterThan(0);
  });

  it('refuses a replay of an IdP-initiated assertion too', async () => {
    const saml = idp.response({
      ...base(idpInitiated),
      person: { nameId: 'portal@corp.example', email: 'portal@corp.example' },
    });
    const first = await post(idpInitiated, saml);
    expect(first.status, first.text).toBe(303);
    expect(first.headers.location).toBe('/');
    expect(cookiesOf(first).session).toBeTruthy();
    await refused(await post(idpInitiated, saml), 'assertion_replayed');
  });

  it('refuses an expired assertion (beyond the 60 s skew) and takes one within it', async () => {
    const past = new Date(Date.now() - 90_000);
    const { res } = await signIn(jit, { nameId: 'late@corp.example', email: 'late@corp.example' }, (o) =>
      idp.response({ ...o, notOnOrAfter: past, notBefore: new Date(Date.now() - 600_000) }),
    );
    await refused(res, 'assertion_expired');
    const skewed = await signIn(jit, { nameId: 'skew@corp.example', email: 'skew@corp.example' }, (o) =>
      idp.response({
        ...o,
        notOnOrAfter: new Date(Date.now() - 20_000),
        notBefore: new Date(Date.now() - 600_000),
      }),
    );
    expect(skewed.res.status).toBe(303);
    expect(skewed.res.headers.location).toBe('/');
  });

  it('refuses an assertion for another audience', async () => {
    const { res } = await signIn(jit, { nameId: 'aud@corp.example', email: 'aud@corp.example' }, (o) =>
      idp.response({ ...o, audience: 'https://other-sp.example/metadata' }),
    );
    await refused(res, 'assertion_invalid');
  });

  it('refuses an assertion for another recipient, and a response for another destination', async () => {
    const wrongRecipient = await signIn(
      jit,
      { nameId: 'rcpt@corp.example', email: 'rcpt@corp.example' },
      (o) => idp.response({ ...o, recipient: 'https://other-sp.example/acs' }),
    );
    await refused(wrongRecipient.res, 'assertion_invalid');
    const wrongDestination = await signIn(
      jit,
      { nameId: 'dest@corp.example', email: 'dest@corp.example' },
      (o) => idp.response({ ...o, destination: 'https://other-sp.example/acs' }),
    );
    await refused(wrongDestination.res, 'assertion_invalid');
  });

  it('does not sign in as the truncated NameID when a comment sits inside it', async () => {
    const victim = await createUser(t.db, 'default', {
      email: 'user@evil.com',
      name: 'Victim',
      role: 'admin',
    });
    const { res } = await signIn(jit, { nameId: 'user@evil.com.example.com' }, (o) => {
      const xml = idp.responseXml(o);
      // Exclusive C14N drops comments, so the signature still holds after the comment goes in.
      return Buffer.from(
        xml.replace('user@evil.com.example.com', 'user@evil.com<!---->.example.com'),
      ).toString('base64');
    });
    // node-saml reads the NameID from the canonical (comment-free) signed XML: the whole value, a different person.
    const session = cookiesOf(res).session;
    expect(session).toBeTruthy();
    const me = await t.get('/users/me', { key: null, headers: { cookie: `session=${session}` } });
    expect(me.body.user.email).toBe('user@evil.com.example.com');
    expect(await auditRows(t, 'login', victim.id)).toEqual([]);
    expect(await auditRows(t, 'saml.sign_in', victim.id)).toEqual([]);
  });

  it('refuses an unsolicited response where IdP-initiated sign-in is off', async () => {
    const res = await post(
      jit,
      idp.response({
        ...base(jit),
        person: { nameId: 'unasked@corp.example', email: 'unasked@corp.example' },
      }),
    );
    await refused(res, 'state_invalid');
    expect(await userByEmail('unasked@corp.example')).toBeUndefined();
  });

  it('refuses an InResponseTo naming no request, or a request another browser started', async () => {
    const unknown = await post(
      jit,
      idp.response({
        ...base(jit),
        person: { nameId: 'x@corp.example', email: 'x@corp.example' },
        inResponseTo: '_nosuch',
      }),
    );
    await refused(unknown, 'state_invalid');
    const started = await start(jit.id);
    const otherBrowser = await post(
      jit,
      idp.response({
        ...base(jit),
        person: { nameId: 'y@corp.example', email: 'y@corp.example' },
        inResponseTo: started.requestId,
      }),
      'not-the-cookie',
    );
    await refused(otherBrowser, 'state_invalid');
  });
});
