import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, freePort } from './servers.js';

/**
 * Hosts of their own on one machine, for the several-machines test: each host is a network namespace with a veth
 * pair to the machine (host side .1 of a /30, namespace side .2, the host side as default route), so a service in
 * one namespace cannot reach another's loopback, only the addresses the test made. Files are shared with the
 * machine as they are (namespaces isolate the network only): the services reach PostgreSQL through its Unix
 * socket, and each gets a data directory of its own so that nothing they share goes through a disk.
 */

const CLI = path.join(ROOT, 'src/cli/main.ts');

/** Why the test cannot run here, or undefined when it can (root, iproute2, nginx, redis-server). */
export function whyNoHosts(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: network namespaces need root';
  for (const tool of ['ip', 'nginx', 'redis-server']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (.ci/run installs nginx; iproute2 and redis-server come with the machine)`;
    }
  }
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return '`ip netns` does not work in this sandbox';
  }
  return undefined;
}

export interface Host {
  name: string;
  /** The namespace's own address, where its service listens. */
  address: string;
  /** The machine's address on this host's link: what the host reaches the machine's services at. */
  gateway: string;
}

/** The namespaces and links of one test, removed together. */
export class Hosts {
  readonly hosts: Host[] = [];
  /** A /24 of 10.231.0.0/16 of this process's own, so two test runs on one machine do not collide. */
  private readonly net = `10.231.${process.pid % 250}`;
  private readonly tag = `cb${process.pid % 100_000}`;

  add(): Host {
    const i = this.hosts.length;
    const name = `${this.tag}h${i}`;
    const outer = `${this.tag}v${i}`;
    const gateway = `${this.net}.${i * 4 + 1}`;
    const address = `${this.net}.${i * 4 + 2}`;
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    ip('netns', 'add', name);
    const host = { name, address, gateway };
    this.hosts.push(host);
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name);
    ip('addr', 'add', `${gateway}/30`, 'dev', outer);
    ip('link', 'set', outer, 'up');
    ip('-n', name, 'addr', 'add', `${address}/30`, 'dev', 'eth0');
    ip('-n', name, 'link', 'set', 'eth0', 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
    // Everything else (the other hosts' gateways, where Redis and the webhook receiver listen) goes through the
    // machine, which answers for its own addresses on any link without forwarding.
    ip('-n', name, 'route', 'add', 'default', 'via', gateway);
    return host;
  }

  /** Removes every namespace (their veth ends go with them). */
  remove(): void {
    for (const host of this.hosts) {
      try {
        execFileSync('ip', ['netns', 'delete', host.name], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
    this.hosts.length = 0;
  }
}

export interface HostService {
  url: string;
  output: () => string;
  kill: () => Promise<void>;
  stop: () => Promise<number | null>;
}

/** `casebook serve` inside a host's namespace, listening on its address; resolves once /readyz answers. */
export async function serveOn(host: Host, port: number, env: Record<string, string>): Promise<HostService> {
  // `ip netns exec` execs the command in place: the child's pid is the server's, so SIGKILL reaches the server.
  const child: ChildProcess = spawn(
    'ip',
    [
      'netns',
      'exec',
      host.name,
      process.execPath,
      '--import',
      'tsx',
      CLI,
      'serve',
      '--host',
      host.address,
      '--port',
      String(port),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, CASEBOOK_LOG_LEVEL: 'warn', CASEBOOK_DRAIN_SECONDS: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://${host.address}:${port}`;
  const service: HostService = {
    url,
    output: () => out,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (gone) throw new Error(`the service on ${host.name} exited before it was ready:\n${out}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`the service on ${host.name} was not ready in 90 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Daemon {
  url: string;
  stop: () => Promise<void>;
}

function daemon(
  command: string,
  args: string[],
  url: string,
  ready: () => Promise<boolean>,
): Promise<Daemon> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return (async () => {
    const deadline = Date.now() + 20_000;
    while (!(await ready())) {
      if (child.exitCode !== null) throw new Error(`${command} exited:\n${out}`);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${command} did not start in 20 s:\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return { url, stop };
  })();
}

/** A Redis of the test's own on `address` (nothing kept on disk). */
export async function startRedis(address: string): Promise<Daemon> {
  const port = await freePort();
  const url = `redis://${address}:${port}/0`;
  const { Redis } = await import('ioredis');
  return daemon(
    'redis-server',
    ['--bind', address, '--port', String(port), '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
    url,
    async () => {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      // Refused until it listens: the rejected connect() says so, the error event need not.
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        redis.disconnect();
      }
    },
  );
}

/**
 * nginx in front of the hosts, as docs/operations.md ("Several machines") configures it: round robin, a failed
 * connection tried on the next host, request bodies passed on as they come.
 */
export function nginxConfig(listen: string, upstreams: string[], prefix: string): string {
  return `worker_processes 1;
daemon off;
user root;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;

  upstream casebook {
${upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 16;
    # Shorter than the hosts' drain (2 s here): nginx ends its idle connections to a draining host itself, so none
    # is open when the host closes (docs/operations.md, "Readiness and draining").
    keepalive_timeout 1s;
  }
  server {
    listen ${listen};
    client_max_body_size 110m;
    location / {
      proxy_pass http://casebook;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_request_buffering off;
      proxy_buffering off;
      # A host that refuses the connection is skipped; a request it took is never sent twice by nginx (POST is
      # not idempotent): the client retries it with its Idempotency-Key.
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 120s;
    }
  }
}
`;
}

/** nginx's error log (why it answered 502: which host, what it met), for a failed assertion's message. */
export function nginxErrors(prefix: string): string {
  try {
    return fs.readFileSync(path.join(prefix, 'error.log'), 'utf8');
  } catch {
    return '(no nginx error log)';
  }
}

export async function startNginx(upstreams: string[]): Promise<Daemon & { prefix: string }> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-nginx-'));
  const port = await freePort();
  const conf = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(conf, nginxConfig(`127.0.0.1:${port}`, upstreams, prefix));
  const url = `http://127.0.0.1:${port}`;
  const d = await daemon('nginx', ['-p', prefix, '-c', conf], url, async () => {
    try {
      await fetch(`${url}/healthz`);
      return true;
    } catch {
      return false;
    }
  });
  return {
    ...d,
    prefix,
    stop: async () => {
      await d.stop();
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
