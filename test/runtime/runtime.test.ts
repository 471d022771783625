import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE_MINIMUM, nodeVersionProblem } from '../../scripts/node-version.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the Node.js runtime', () => {
  it('survives thousands of prepared statements collected by the garbage collector', () => {
    // better-sqlite3 12 on Node.js 24 aborted the process (`Assertion failed: (env) != nullptr`) the first time
    // the collector finalised a statement; a child process, so that such an abort fails this test, not the run.
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'test/runtime/gc-stress.ts', '5000'],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    expect(child.stderr).toBe('');
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe('answered 10000');
  });

  it('runs on the maintained lines and refuses older ones, naming what it found and what it needs', () => {
    expect(NODE_MINIMUM).toEqual([22, 12, 0]);
    for (const ok of ['22.12.0', '22.23.3', '23.0.0', '24.0.0', '24.21.0', '26.1.0']) {
      expect(nodeVersionProblem(ok)).toBeNull();
    }
    for (const old of ['18.20.8', '20.20.2', '21.7.3', '22.11.0', '22.0.0']) {
      const problem = nodeVersionProblem(old, '/opt/node/bin/node');
      expect(problem).toContain(`this is Node.js ${old} (/opt/node/bin/node)`);
      expect(problem).toContain('needs Node.js 22.12.0 or newer');
      expect(problem).toContain('scripts/node-env.sh');
    }
  });

  // Runs where the machine's own node is older than 22 (the development machines here carry Node.js 20).
  const system = spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
  const systemVersion = system.status === 0 ? system.stdout.trim() : undefined;
  const old = systemVersion !== undefined && nodeVersionProblem(systemVersion) !== null;
  it.runIf(old)(`npm start on an older Node.js (${systemVersion}) stops at once with a message`, () => {
    const child = spawnSync('npm', ['start', '--silent'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      // The old node first on the path, as on a machine that has only it; no npm_config_nodedir of ours.
      env: { ...process.env, PATH: `/usr/bin:${process.env.PATH}`, npm_config_nodedir: undefined },
    });
    expect(child.status).toBe(1);
    expect(child.stderr).toContain(`this is Node.js ${systemVersion} (/usr/bin/node)`);
    expect(child.stderr).toContain('needs Node.js 22.12.0 or newer');
    expect(child.stderr).not.toContain('building');
  });
});
