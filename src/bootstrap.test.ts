import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_FILE, firstStartBanner, saveFirstStartCredentials } from './bootstrap.js';

const first = {
  email: 'owner@casebook.local',
  generatedPassword: 'generated-pass-123',
  apiKey: 'default.k1.s3cret',
};
const url = 'http://casebook.example';

describe("the first start's credentials", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bootstrap-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are saved readable by the owner alone, replacing a file an earlier database left with a wider mode', () => {
    const target = path.join(dir, CREDENTIALS_FILE);
    fs.writeFileSync(target, 'old', { mode: 0o644 });
    expect(saveFirstStartCredentials(dir, first, url)).toBe(target);
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(target, 'utf8');
    expect(text).toContain('Password: generated-pass-123');
    expect(text).toContain('API key:  default.k1.s3cret');
  });

  it('are not saved where the data directory cannot be made, so the banner must show them', () => {
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, '');
    expect(saveFirstStartCredentials(path.join(blocker, 'data'), first, url)).toBeUndefined();
    const banner = firstStartBanner(first, url, [], { terminal: false });
    expect(banner).toContain('Password: generated-pass-123');
    expect(banner).toContain('API key:  default.k1.s3cret');
  });

  it('stay out of a banner that goes to a log, which names the file instead', () => {
    const banner = firstStartBanner(first, url, [], { file: '/data/x.txt', terminal: false });
    expect(banner).toContain('Password and API key: in /data/x.txt');
    expect(banner).not.toContain('generated-pass-123');
    expect(banner).not.toContain('s3cret');
  });

  it('are shown on a terminal, with where they were saved', () => {
    const banner = firstStartBanner(first, url, [], { file: '/data/x.txt', terminal: true });
    expect(banner).toContain('Password: generated-pass-123');
    expect(banner).toContain('API key:  default.k1.s3cret');
    expect(banner).toContain('Saved in: /data/x.txt');
  });
});
