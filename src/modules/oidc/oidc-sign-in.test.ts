import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb, type ApiResponse, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows } from '../../../test/helpers/factories.js';
import { startIdp, type TestIdp } from '../../../test/helpers/oidc-idp.js';
import { createUser, setDeactivated } from '../users/users.service.js';

const SECRET = 'client-secret-for-the-test-idp';

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

describeEachDb(
  'Sign-in through OpenID Connect (/api/auth/oidc)',
  (t: TestEnv) => {
    let idp: TestIdp;
    let jit: { id: string; redirectUri: string };
    let strict: { id: string; redirectUri: string };
    let projectId: string;

    /** The start route: its redirect to the provider and the state cookie it set. */
    async function start(providerId: string, returnTo?: string) {
      const res = await t.request('GET', `/api/auth/oidc/${providerId}/start`, {
        key: null,
        query: returnTo === undefined ? undefined : { returnTo },
      });
      return { res, state: cookiesOf(res).oidc_state };
    }

    /** The whole flow as a browser goes through it: start, the provider's forms, the callback. */
    async function signInAs(providerId: string, login: string, returnTo?: string) {
      const started = await start(providerId, returnTo);
      expect(started.res.status, started.res.text).toBe(302);
      const back = await idp.signIn(String(started.res.headers.location), login);
      const callback = await t.request('GET', `${back.pathname}${back.search}`, {
        key: null,
        headers: { cookie: `oidc_state=${started.state}` },
      });
      return { callback, back, state: started.state };
    }

    const userByEmail = (email: string) =>
      t.db.selectFrom('users').selectAll().where('email_norm', '=', email).executeTakeFirst();

    beforeAll(async () => {
      idp = await startIdp();
      const project = await t.post('/project', { code: 'SSO', title: 'Single sign-on' });
      expect(project.status).toBe(201);
      projectId = project.body.id;
      const made = await t.post('/oidc-provider', {
        name: 'Company SSO',
        issuer: idp.issuer,
        clientId: 'casebook',
        clientSecret: SECRET,
        enabled: true,
        justInTime: true,
        scopes: ['groups'],
        roleRules: [
          { group: 'qa-leads', role: 'admin' },
          { group: 'qa', role: 'user' },
        ],
        projectRules: [{ group: 'qa', projects: ['SSO'] }],
      });
      expect(made.status, made.text).toBe(201);
      jit = made.body;
      const other = await t.post('/oidc-provider', {
        name: 'Partner SSO',
        issuer: idp.issuer,
        clientId: 'casebook-strict',
        clientSecret: SECRET,
        enabled: true,
        justInTime: false,
      });
      expect(other.status, other.text).toBe(201);
      strict = other.body;
      idp.configure([
        { client_id: 'casebook', client_secret: SECRET, redirect_uris: [jit.redirectUri] },
        { client_id: 'casebook-strict', client_secret: SECRET, redirect_uris: [strict.redirectUri] },
      ]);
      idp.users.set('alice', {
        email: 'alice@corp.example',
        email_verified: true,
        name: 'Alice Lead',
        groups: ['qa', 'qa-leads'],
      });
      idp.users.set('bob', { email: 'bob@corp.example', email_verified: true, name: 'Bob', groups: ['qa'] });
      idp.users.set('mallory', { email: 'mallory@corp.example', email_verified: false, name: 'Mallory' });
      idp.users.set('dora', { email: 'dora@corp.example', email_verified: true, name: 'Dora' });
      idp.users.set('carol', { email: 'carol@corp.example', email_verified: true, name: 'Carol' });
    });

    afterAll(async () => {
      await idp?.close();
    });

    it('lists the enabled providers for the sign-in page without signing in, and nothing of their set-up', async () => {
      const res = await t.get('/api/auth/oidc/providers', { key: null });
      expect(res.status).toBe(200);
      expect(res.body.providers).toEqual([
        { id: jit.id, name: 'Company SSO', startUrl: `/api/auth/oidc/${jit.id}/start` },
        { id: strict.id, name: 'Partner SSO', startUrl: `/api/auth/oidc/${strict.id}/start` },
      ]);
      expect(res.text).not.toContain(SECRET);
    });

    it('sends the browser to the provider with PKCE (S256), state, nonce and the scopes asked, and stores the state hashed', async () => {
      const { res, state } = await start(jit.id, '/project/SSO');
      expect(res.status).toBe(302);
      const to = new URL(String(res.headers.location));
      expect(to.origin).toBe(idp.issuer);
      expect(to.searchParams.get('code_challenge_method')).toBe('S256');
      expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      expect(to.searchParams.get('state')).toBe(state);
      expect(to.searchParams.get('nonce')).toBeTruthy();
      expect(to.searchParams.get('scope')).toBe('openid email profile groups');
      expect(to.searchParams.get('redirect_uri')).toBe(jit.redirectUri);
      const rows = await t.db
        .selectFrom('oidc_sign_ins')
        .selectAll()
        .where('provider_id', '=', jit.id)
        .execute();
      expect(rows.some((r) => r.return_to === '/project/SSO')).toBe(true);
      expect(rows.some((r) => r.id === state)).toBe(false);
    });

    it('makes a just-in-time account with the first matching role and the mapped projects, opens the web session and lands on returnTo', async () => {
      const { callback } = await signInAs(jit.id, 'alice', '/project/SSO?tab=runs');
      expect(callback.status, callback.text).toBe(302);
      expect(callback.headers.location).toBe('/project/SSO?tab=runs');
      const session = cookiesOf(callback).session;
      expect(session).toBeTruthy();
      expect(cookiesOf(callback).oidc_state).toBe('');
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
      const identity = await t.db
        .selectFrom('oidc_identities')
        .selectAll()
        .where('user_id', '=', user.id)
        .execute();
      expect(identity).toMatchObject([{ provider_id: jit.id, subject: 'alice' }]);
      // The contract's login exactly as a password sign-in records it (no meta), and Casebook's event beside it.
      expect(await auditRows(t, 'login', user.id)).toMatchObject([{ meta: null }]);
      const [event] = await auditRows(t, 'oidc.sign_in', user.id);
      expect(JSON.parse(event!.meta!)).toEqual({
        provider_id: jit.id,
        provider_name: 'Company SSO',
        outcome: 'success',
        email: 'alice@corp.example',
        account_created: true,
        role: 'admin',
        project_ids: [projectId],
      });
    });

    it('finds the same person again by the provider subject and moves their role with their groups', async () => {
      idp.users.set('alice', { ...idp.users.get('alice'), groups: ['qa'] });
      const { callback } = await signInAs(jit.id, 'alice');
      expect(callback.status).toBe(302);
      expect(callback.headers.location).toBe('/');
      const user = (await userByEmail('alice@corp.example'))!;
      expect(user.role).toBe('user');
      const events = await auditRows(t, 'oidc.sign_in', user.id);
      expect(JSON.parse(events.at(-1)!.meta!)).toMatchObject({
        account_created: false,
        role: 'user',
        previous_role: 'admin',
      });
    });

    it('refuses an unknown person where only pre-provisioned people may sign in: error=no_account, no account made', async () => {
      const { callback } = await signInAs(strict.id, 'bob', '/project/SSO');
      expect(callback.status).toBe(302);
      expect(callback.headers.location).toBe('/sign-in?error=no_account&returnTo=%2Fproject%2FSSO');
      expect(cookiesOf(callback).session).toBeUndefined();
      expect(await userByEmail('bob@corp.example')).toBeUndefined();
      const failed = (await auditRows(t, 'oidc.sign_in')).map((r) => JSON.parse(r.meta!));
      expect(failed.at(-1)).toMatchObject({
        provider_id: strict.id,
        outcome: 'no_account',
        email: 'bob@corp.example',
      });
    });

    it('lets a pre-provisioned person in through that provider, matched by the verified e-mail', async () => {
      const carol = await createUser(t.db, t.tenantId, {
        email: 'Carol@corp.example',
        name: 'Carol',
        role: 'viewer',
      });
      const { callback } = await signInAs(strict.id, 'carol');
      expect(callback.status).toBe(302);
      expect(callback.headers.location).toBe('/');
      expect(cookiesOf(callback).session).toBeTruthy();
      expect((await auditRows(t, 'login', carol.id)).length).toBe(1);
    });

    it('refuses an e-mail the provider does not call verified: error=email_unverified, no account made', async () => {
      const { callback } = await signInAs(jit.id, 'mallory');
      expect(callback.headers.location).toBe('/sign-in?error=email_unverified');
      expect(cookiesOf(callback).session).toBeUndefined();
      expect(await userByEmail('mallory@corp.example')).toBeUndefined();
    });

    it('refuses a deactivated person: error=deactivated, no session, the failure audited with the person', async () => {
      const dora = await createUser(t.db, t.tenantId, {
        email: 'dora@corp.example',
        name: 'Dora',
        role: 'user',
      });
      await setDeactivated(t.db, t.tenantId, dora.id, true);
      const { callback } = await signInAs(jit.id, 'dora');
      expect(callback.headers.location).toBe('/sign-in?error=deactivated');
      expect(cookiesOf(callback).session).toBeUndefined();
      expect(await auditRows(t, 'login', dora.id)).toEqual([]);
      const [event] = await auditRows(t, 'oidc.sign_in', dora.id);
      expect(JSON.parse(event!.meta!)).toMatchObject({ outcome: 'deactivated' });
    });

    it('refuses a replayed callback, a forged state and a state of another browser: error=state_invalid', async () => {
      idp.users.set('erin', { email: 'erin@corp.example', email_verified: true, name: 'Erin' });
      const { callback, back, state } = await signInAs(jit.id, 'erin');
      expect(callback.status).toBe(302);
      expect(cookiesOf(callback).session).toBeTruthy();
      const replay = await t.request('GET', `${back.pathname}${back.search}`, {
        key: null,
        headers: { cookie: `oidc_state=${state}` },
      });
      expect(replay.headers.location).toBe('/sign-in?error=state_invalid');
      expect(cookiesOf(replay).session).toBeUndefined();

      const forged = await t.request('GET', `/api/auth/oidc/${jit.id}/callback`, {
        key: null,
        query: { code: 'made-up', state: 'forged-state' },
        headers: { cookie: 'oidc_state=forged-state' },
      });
      expect(forged.headers.location).toBe('/sign-in?error=state_invalid');

      // A callback carried to another browser (login CSRF): its state is not that browser's cookie.
      const started = await start(jit.id);
      const elsewhere = await idp.signIn(String(started.res.headers.location), 'erin');
      const other = await t.request('GET', `${elsewhere.pathname}${elsewhere.search}`, {
        key: null,
        headers: { cookie: 'oidc_state=another-browser' },
      });
      expect(other.headers.location).toBe('/sign-in?error=state_invalid');
      expect(cookiesOf(other).session).toBeUndefined();
      const outcomes = (await auditRows(t, 'oidc.sign_in')).map((r) => JSON.parse(r.meta!).outcome);
      expect(outcomes.filter((o) => o === 'state_invalid').length).toBeGreaterThanOrEqual(3);
    });

    it('refuses an expired state', async () => {
      const started = await start(jit.id);
      const back = await idp.signIn(String(started.res.headers.location), 'erin');
      await t.db.updateTable('oidc_sign_ins').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute();
      const late = await t.request('GET', `${back.pathname}${back.search}`, {
        key: null,
        headers: { cookie: `oidc_state=${started.state}` },
      });
      expect(late.headers.location).toBe('/sign-in?error=state_invalid');
    });

    it('sends a disabled provider and an unsafe returnTo to the sign-in page and to /', async () => {
      const off = await t.patch(`/oidc-provider/${strict.id}`, { enabled: false });
      expect(off.status).toBe(200);
      const { res } = await start(strict.id, '/project');
      expect(res.headers.location).toBe('/sign-in?error=provider_unavailable&returnTo=%2Fproject');
      await t.patch(`/oidc-provider/${strict.id}`, { enabled: true });
      for (const unsafe of ['https://evil.example/', '//evil.example', '/\\evil.example']) {
        const { callback } = await signInAs(jit.id, 'erin', unsafe);
        expect(callback.headers.location).toBe('/');
      }
    });

    it('never answers or logs the client secret: it is stored sealed', async () => {
      for (const res of [await t.get('/oidc-provider'), await t.get(`/oidc-provider/${jit.id}`)]) {
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(SECRET);
        expect(res.text).not.toContain('client_secret');
      }
      const row = await t.db
        .selectFrom('oidc_providers')
        .selectAll()
        .where('id', '=', jit.id)
        .executeTakeFirstOrThrow();
      expect(row.client_secret_enc).not.toContain(SECRET);
      const events = await t.db
        .selectFrom('audit_events')
        .select('meta')
        .where('action', 'like', 'oidc.%')
        .execute();
      expect(JSON.stringify(events)).not.toContain(SECRET);
    });

    describe('a person who signed in through the provider', () => {
      it('creates an API key from the web session and uses it on the API', async () => {
        const { callback } = await signInAs(jit.id, 'bob');
        const session = cookiesOf(callback).session;
        expect(session).toBeTruthy();
        const made = await t.post(
          '/users/me/api-keys',
          { name: 'CI uploader' },
          { key: null, headers: { cookie: `session=${session}` } },
        );
        expect(made.status, made.text).toBe(201);
        const projects = await t.get('/project', { key: made.body.key });
        expect(projects.status).toBe(200);
        expect(projects.body.projects.map((p: { code: string }) => p.code)).toContain('SSO');
      });
    });
  },
  { env: { CASEBOOK_OUTBOUND_ALLOW: '127.0.0.1' } },
);
