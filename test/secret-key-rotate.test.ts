import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decryptCredential } from '../src/modules/integrations/credentials.js';
import { openClientSecret } from '../src/modules/oidc/oidc-providers.service.js';
import { openWebhookSecrets } from '../src/modules/webhooks/webhooks.service.js';
import { verifySecretKey } from '../src/secret-key.js';
import { rotateSecretKey } from '../src/secret-key-rotate.js';
import { describeEachDb } from './helpers/test-app.js';

/**
 * `casebook secret-key rotate` (docs/operations.md#the-secret-key): every sealed value opens under the new key
 * with what it held, none under the old one; the key's file is where the command says; a start with the old
 * key is refused.
 */

const OLD = 'test-secret-key-0123456789';

describeEachDb('casebook secret-key rotate', (t) => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-rotate-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const sealedRows = async () => ({
    webhook: await t.db
      .selectFrom('webhooks')
      .select(['secret_enc', 'headers_enc'])
      .executeTakeFirstOrThrow(),
    token: (await t.db.selectFrom('integrations').select('token_enc').executeTakeFirstOrThrow()).token_enc!,
    oidc: await t.db.selectFrom('oidc_providers').select('client_secret_enc').executeTakeFirstOrThrow(),
  });

  it('re-seals webhook secrets, headers, tracker tokens and OIDC client secrets under a new key file, and the old key opens nothing', async () => {
    const hook = await t.post('/webhook', {
      name: 'CI',
      endpoint: 'https://hooks.example.com/ci',
      eventTypes: ['run_created'],
      secret: 'webhook-signing-secret',
      headers: { 'X-Team': 'qa-team-header' },
    });
    expect(hook.status, hook.text).toBe(201);
    const tracker = await t.post('/integration', {
      name: 'Tracker',
      type: 'tracker_a',
      config: { account: 'acme' },
      token: 'tracker-token-123',
    });
    expect(tracker.status, tracker.text).toBe(201);
    const sso = await t.post('/oidc-provider', {
      name: 'SSO',
      issuer: 'https://sso.example.com',
      clientId: 'casebook',
      clientSecret: 'oidc-client-secret',
    });
    expect(sso.status, sso.text).toBe(201);

    // The key comes from the data directory's key file, as on a default installation.
    const keyFile = path.join(dir, 'secret.key');
    fs.writeFileSync(keyFile, `${OLD}\n`, { mode: 0o600 });
    const rotation = await rotateSecretKey(t.db, { ...t.config, secretKey: '', dataDir: dir });

    expect(rotation.resealed).toEqual({
      integrationToken: 1,
      webhookSecret: 1,
      webhookHeaders: 1,
      twoFactorSecret: 0,
      oidcClientSecret: 1,
      secretKeyCheck: 1,
    });
    expect(rotation.keyFile).toBe(keyFile);
    expect(fs.readFileSync(`${keyFile}.previous`, 'utf8').trim()).toBe(OLD);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(rotation.next.join(' ')).toMatch(/Restart every instance/);
    const fresh = fs.readFileSync(keyFile, 'utf8').trim();
    expect(fresh).not.toBe(OLD);

    const rows = await sealedRows();
    expect(openWebhookSecrets(fresh, rows.webhook)).toEqual({
      secret: 'webhook-signing-secret',
      headers: { 'X-Team': 'qa-team-header' },
    });
    expect(decryptCredential(fresh, rows.token)).toBe('tracker-token-123');
    expect(openClientSecret(fresh, rows.oidc)).toBe('oidc-client-secret');
    expect(() => openClientSecret(OLD, rows.oidc)).toThrow();
    expect(() => openWebhookSecrets(OLD, rows.webhook)).toThrow();
    expect(() => decryptCredential(OLD, rows.token)).toThrow();
    await expect(
      verifySecretKey(t.db, { key: fresh, source: 'env', created: false }),
    ).resolves.toBeUndefined();
    await expect(verifySecretKey(t.db, { key: OLD, source: 'env', created: false })).rejects.toThrow(
      /does not open this database's secrets/,
    );
  });

  it('with CASEBOOK_SECRET_KEY, leaves the new key in secret.key.new and says to set it on every instance', async () => {
    const fresh = fs.readFileSync(path.join(dir, 'secret.key'), 'utf8').trim();
    const other = path.join(dir, 'env');
    const rotation = await rotateSecretKey(t.db, { ...t.config, secretKey: fresh, dataDir: other });
    expect(rotation.keyFile).toBe(path.join(other, 'secret.key.new'));
    expect(rotation.previousKeyFile).toBeUndefined();
    expect(rotation.next.join(' ')).toMatch(/On every instance set CASEBOOK_SECRET_KEY to it/);
    const newest = fs.readFileSync(rotation.keyFile, 'utf8').trim();
    expect(decryptCredential(newest, (await sealedRows()).token)).toBe('tracker-token-123');

    // The old key is refused before anything is written, and no key file is left behind.
    const refused = path.join(dir, 'refused');
    await expect(rotateSecretKey(t.db, { ...t.config, secretKey: fresh, dataDir: refused })).rejects.toThrow(
      /does not open this database's secrets/,
    );
    expect(fs.existsSync(path.join(refused, 'secret.key.new'))).toBe(false);
    expect(decryptCredential(newest, (await sealedRows()).token)).toBe('tracker-token-123');
  });
});
