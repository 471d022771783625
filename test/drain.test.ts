import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/main.js';

/**
 * What a balancer's kept-alive connections meet when the service stops: during the drain every answer ends its
 * connection, and a request that still reaches the server as it closes is served, not refused.
 */

let server: RunningServer | undefined;
let dataDir = '';

afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<{ port: number }> {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-drain-'));
  const config = loadConfig({
    CASEBOOK_DATA_DIR: dataDir,
    CASEBOOK_LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const original = process.stdout.write.bind(process.stdout);
  // The first-start banner is not this test's business.
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    server = await startServer(config, { handleSignals: false });
  } finally {
    process.stdout.write = original;
  }
  return { port: Number(new URL(server.address).port) };
}

function get(agent: http.Agent, port: number, urlPath: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; socket: net.Socket }>(
    (resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, socket: req.socket! }));
      });
      req.on('error', reject);
    },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('stopping the service', () => {
  it('keeps an idle kept-alive connection open while draining and ends it with the answer to its next request', async () => {
    const { port } = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const before = await get(agent, port, '/healthz');
    expect(before.headers.connection).toBe('keep-alive');
    const idle = before.socket;
    let idleClosed = false;
    idle.once('close', () => (idleClosed = true));

    const closed = server!.close(2);
    // Closing it now could cross a request the balancer is sending on it that very moment, which nginx answers 502
    // (it does not resend a POST): the connection stays open, and its next answer tells the client to end it.
    await sleep(300);
    expect(idleClosed).toBe(false);
    const during = await get(agent, port, '/healthz');
    expect(during.socket).toBe(idle);
    expect(during.status).toBe(200);
    expect(during.headers.connection).toBe('close');
    agent.destroy();
    await closed;
  });

  it('closes a kept-alive connection left idle through the whole drain when the server closes', async () => {
    const { port } = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const before = await get(agent, port, '/healthz');
    const idleClosed = new Promise<void>((resolve) => before.socket.once('close', () => resolve()));
    await server!.close(1);
    await idleClosed;
    agent.destroy();
  });

  it('serves a request that reaches the server while it closes, on a connection that ends with the answer', async () => {
    const { port } = await start();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A request under way (its headers not yet complete) when the drain ends and the server closes.
    socket.write('GET /healthz HTTP/1.1\r\nHost: casebook.test\r\n');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const closed = server!.close(1);
    await sleep(1_300);
    socket.write('\r\n');
    await ended;
    await closed;
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
  });
});
