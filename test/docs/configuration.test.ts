import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_FILE } from '../../scripts/config-docs.js';
import { FILE_SETTINGS, loadConfig } from '../../src/config.js';
import { renderConfigurationPage, SETTINGS } from '../../src/config-reference.js';

describe('docs/configuration.md, the one reference of the settings', () => {
  it('is what src/config-reference.ts says now (else: npm run docs:config)', () => {
    expect(
      fs.readFileSync(CONFIGURATION_FILE, 'utf8') === renderConfigurationPage(),
      'docs/configuration.md is stale: run `npm run docs:config`',
    ).toBe(true);
  });

  it('lists every setting src/config.ts reads, and no other', () => {
    const source = fs.readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]));
    read.delete('LOG_LEVEL'); // the old name of CASEBOOK_LOG_LEVEL, read as a fallback.
    expect([...read].sort()).toEqual(SETTINGS.map((s) => s.name).sort());
    for (const name of FILE_SETTINGS) expect(read.has(name), name).toBe(true);
  });
});

describe('settings given as files (<NAME>_FILE)', () => {
  const dir = fs.mkdtempSync('/tmp/casebook-config-');
  const file = (name: string, text: string) => {
    fs.writeFileSync(`${dir}/${name}`, text);
    return `${dir}/${name}`;
  };

  it('reads each secret setting from its file, without the trailing newline', () => {
    const config = loadConfig({
      CASEBOOK_SECRET_KEY_FILE: file('key', 'secret-key-from-a-file-0123\n'),
      CASEBOOK_DATABASE_URL_FILE: file('db', 'postgres://app:pw@db:5432/casebook\n'),
      CASEBOOK_REDIS_URL_FILE: file('redis', 'redis://cache:6379/1'),
      CASEBOOK_METRICS_TOKEN_FILE: file('metrics', 'metrics-token-0123456789\r\n'),
      CASEBOOK_SMTP_URL_FILE: file('smtp', 'smtp://mailer:pw@mail:587\n'),
    });
    expect([
      config.secretKey,
      config.databaseUrl,
      config.redisUrl,
      config.metricsToken,
      config.smtpUrl,
    ]).toEqual([
      'secret-key-from-a-file-0123',
      'postgres://app:pw@db:5432/casebook',
      'redis://cache:6379/1',
      'metrics-token-0123456789',
      'smtp://mailer:pw@mail:587',
    ]);
  });

  it('refuses a setting given both ways, and a file it cannot read, naming them', () => {
    expect(() =>
      loadConfig({
        CASEBOOK_SECRET_KEY: 'x'.repeat(20),
        CASEBOOK_SECRET_KEY_FILE: file('both', 'y'.repeat(20)),
      }),
    ).toThrow('CASEBOOK_SECRET_KEY and CASEBOOK_SECRET_KEY_FILE are both set: set one of them');
    expect(() => loadConfig({ CASEBOOK_METRICS_TOKEN_FILE: `${dir}/missing` })).toThrow(
      `CASEBOOK_METRICS_TOKEN_FILE: cannot read ${dir}/missing (ENOENT)`,
    );
  });
});
