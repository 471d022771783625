import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  available,
  savedCredentials,
  freePort,
  packRelease,
  projectCodes,
  signInAndRecordResult,
  waitForHealth,
} from './release-helpers.js';

/**
 * The container image (Containerfile, docs/operations.md "Install"), built from the release tarball on a base this
 * machine can build — no image can be pulled here: scripts/container-base.sh makes Debian bookworm minbase with
 * Node.js 24 and npm (its tarball cached under ~/.cache/casebook/container, so only a first run builds it). Runs
 * with podman and runc when they and mmdebstrap are installed (.ci/run installs them); skipped with a notice when
 * not. The containers share the host's network (`--network host`): this machine has no container networking.
 *
 * A file of its own, beside the tarball's (release.test.ts), so that the two run side by side on Vitest's two
 * workers; each packs the release (seconds: the build CI made is reused). The build's npm cache mount outlives
 * the build (/var/tmp/buildah-cache), and the Containerfile's `npm ci --prefer-offline` takes what it holds without
 * asking the registry: only a machine's first build fetches (revalidating took 2-3 minutes through the proxy).
 */
const MAX_IMAGE_BYTES = 250 * 1000 * 1000;
const tools = ['podman', 'mmdebstrap'].filter((tool) => !available(tool));

if (tools.length > 0) {
  console.warn(`container image tests skipped: ${tools.join(' and ')} not installed (.ci/run installs them)`);
}

describe.skipIf(tools.length > 0)('the container image', { timeout: 600_000 }, () => {
  const id = randomBytes(4).toString('hex');
  const image = `localhost/casebook-test:${id}`;
  const volume = `casebook-test-${id}`;
  const containers: string[] = [];
  /** The build's stage images (untagged), removed with the image: a CI machine would keep 240 MB per run. */
  let stages: string[] = [];
  let work: string;
  let env: NodeJS.ProcessEnv;

  const podman = (args: string[]) =>
    execFileSync('podman', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

  let tarball: string;

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-image-'));
    tarball = packRelease(work);
    // This machine refuses setrlimit and crun fails on its cgroups: no default ulimits, runc.
    let conf = process.env.CONTAINERS_CONF;
    if (!conf) {
      conf = path.join(work, 'containers.conf');
      fs.writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
    }
    env = { ...process.env, CONTAINERS_CONF: conf };
  }, 600_000);
  afterAll(() => {
    const rm = ['rm', '--force', '--time', '0'];
    for (const name of containers) spawnSync('podman', [...rm, name], { env, stdio: 'ignore' });
    spawnSync('podman', ['volume', 'rm', '--force', volume, `${volume}-early`], { env, stdio: 'ignore' });
    spawnSync('podman', ['rmi', '--force', image, ...stages], { env, stdio: 'ignore' });
    fs.rmSync(work, { recursive: true, force: true });
  }, 120_000);

  /** Runs the image on a volume (podman makes it the first time); answers the container's name and port. */
  async function run(on: string): Promise<{ name: string; port: number }> {
    const port = await freePort();
    const name = `casebook-test-${id}-${containers.length + 1}`;
    containers.push(name);
    podman(
      ['run', '--detach', '--name', name, '--network', 'host', '--read-only', '--volume', `${on}:/data`]
        .concat(['--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1', '--env', 'CASEBOOK_DRAIN_SECONDS=2'])
        .concat([image]),
    );
    return { name, port };
  }

  /** Starts the image on the volume; answers its name and address once /healthz answers. */
  async function start(): Promise<{ name: string; base: string }> {
    const { name, port } = await run(volume);
    const base = `http://127.0.0.1:${port}`;
    const running = () => podman(['inspect', '--format', '{{.State.Running}}', name]) === 'true';
    await waitForHealth(`${base}/healthz`, 90, running).catch((err: Error) => {
      throw new Error(`${err.message}\n${podman(['logs', name])}`);
    });
    return { name, base };
  }

  /** `podman stop` sends SIGTERM and waits up to 30 s before SIGKILL: exit code 0 means it drained and closed. */
  function stop(name: string): { code: number; logs: string } {
    podman(['stop', '--time', '30', name]);
    const code = Number(podman(['inspect', '--format', '{{.State.ExitCode}}', name]));
    return { code, logs: podman(['logs', name]) };
  }

  it('builds from the release tarball on a Node.js 24 base, at most 250 MB, to run as an unprivileged user', () => {
    const started = Date.now();
    const base = execFileSync(path.join(ROOT, 'scripts/container-base.sh'), {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    const baseSeconds = (Date.now() - started) / 1000;
    const context = path.join(work, 'context');
    fs.mkdirSync(context);
    fs.renameSync(tarball, path.join(context, path.basename(tarball)));
    const untagged = () => podman(['images', '--quiet', '--filter', 'dangling=true']).split('\n');
    const before = new Set(untagged());
    const building = Date.now();
    // The machine's certificate authorities, for npm in the build (a proxy may re-sign the registry's TLS).
    const ca = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
    podman(
      ['build', '--quiet', '--format', 'docker', '--network', 'host', '--build-arg', `BASE=${base}`]
        .concat(fs.existsSync(ca) ? ['--secret', `id=ca,src=${ca}`] : [])
        .concat(['--tag', image, '--file', path.join(ROOT, 'Containerfile'), context]),
    );
    const buildSeconds = (Date.now() - building) / 1000;
    stages = untagged().filter((i) => i !== '' && !before.has(i));
    const size = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]));
    console.info(
      `container image: base ${baseSeconds.toFixed(0)} s, build ${buildSeconds.toFixed(0)} s, ${(size / 1e6).toFixed(0)} MB`,
    );
    expect(size).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    expect(podman(['image', 'inspect', '--format', '{{.Config.User}}', image])).toBe('casebook');
    expect(podman(['run', '--rm', '--network', 'host', '--entrypoint', 'id', image, '-u'])).not.toBe('0');
    const health = podman(['image', 'inspect', '--format', '{{json .Config.Healthcheck.Test}}', image]);
    expect(health).toContain('/healthz');
    podman(['volume', 'create', volume]);
  });

  let owner: { email: string; password: string; key: string };

  it('starts on a volume with a read-only root, signs the owner in, records a result and exits 0 on SIGTERM', async () => {
    const { name, base } = await start();
    expect(podman(['healthcheck', 'run', name])).toBe('');
    // The log (the container's stdout) names the file on the volume; the credentials are read from it.
    owner = savedCredentials(podman(['logs', name]), (file) => podman(['exec', name, 'cat', file]));
    await signInAndRecordResult(base, owner);
    const stopped = stop(name);
    expect(stopped.logs).toContain('shutting down');
    expect(stopped.code).toBe(0);
  });

  it('starts again on the same volume with the same data and secret key, and no second owner', async () => {
    const { name, base } = await start();
    // The key made before still opens the project made before: same database, same secret key.
    expect(await projectCodes(base, owner.key)).toEqual(['REL']);
    const list = podman(['exec', name, 'node', '/opt/casebook/dist/cli/main.js', 'user', 'list']);
    const { users } = JSON.parse(list) as { users: { role: string }[] };
    expect(users.filter((u) => u.role === 'owner')).toHaveLength(1);
    const stopped = stop(name);
    expect(stopped.logs).not.toContain('Casebook is ready');
    expect(stopped.code).toBe(0);
  });

  it('exits 0 at once when stopped while it still starts: node as PID 1 has its SIGTERM handler from the start', async () => {
    // A new volume: a first start (migrations, the owner) is the longest. Stopped once node has the database open
    // (its handlers are in place by then), before it listens. Node's own handler, there from its first moment,
    // drops a signal that no JavaScript handler takes: as PID 1 nothing else stops it (init: true covers that).
    const { name } = await run(`${volume}-early`);
    const pid = podman(['inspect', '--format', '{{.State.Pid}}', name]);
    const opened = () =>
      fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith('/casebook.db');
        } catch {
          return false;
        }
      });
    for (const until = Date.now() + 30_000; !opened() && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const stopping = Date.now();
    const stopped = stop(name);
    const seconds = (Date.now() - stopping) / 1000;
    // It did not listen: the first start's credentials are shown as those of a start that did not serve.
    expect(stopped.logs).toContain('Casebook did not start');
    expect(stopped.logs).not.toContain('casebook listening');
    expect({ code: stopped.code, quick: seconds < 10 }, stopped.logs).toEqual({ code: 0, quick: true });
  });
});
