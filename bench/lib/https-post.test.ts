import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Agent, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateTls } from '../../server/tls/index.js';
import { httpsPost } from './https-post.js';

// A server that, on every second request of a connection, closes the connection unanswered: what a
// client sees when the server's keep-alive timer closes a pooled socket as a request goes out.
describe('httpsPost', () => {
  let dir: string;
  let server: Server;
  let url: URL;
  let ca: string;
  const seen: string[] = [];
  const resets: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'https-post-'));
    const tls = await loadOrCreateTls(dir);
    ca = tls.cert;
    const perSocket = new WeakMap<object, number>();
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (n === 2 || body === 'never') {
          resets.push(body);
          req.socket.destroy();
          return;
        }
        seen.push(body);
        res.end(`ok ${body}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`https://localhost:${(server.address() as AddressInfo).port}/x`);
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a request again when its reused keep-alive socket was reset', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    const first = await httpsPost(agent, url, {}, 'a');
    const second = await httpsPost(agent, url, {}, 'b');
    expect([first.status, first.body.toString()]).toEqual([200, 'ok a']);
    expect([second.status, second.body.toString()]).toEqual([200, 'ok b']);
    expect(seen).toEqual(['a', 'b']);
    agent.destroy();
  });

  it('gives up on a reset that is not a stale socket, after one more try at most', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    resets.length = 0;
    await expect(httpsPost(agent, url, {}, 'never')).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(resets).toEqual(['never']);
    agent.destroy();

    // Three pooled sockets: the request is reset on one, sent again once (on another), and rejected.
    const pooled = new Agent({ keepAlive: true, maxSockets: 3, ca });
    const bodies = await Promise.all(['c', 'd', 'e'].map((b) => httpsPost(pooled, url, {}, b).then((a) => a.body.toString())));
    expect(bodies).toEqual(['ok c', 'ok d', 'ok e']);
    resets.length = 0;
    await expect(httpsPost(pooled, url, {}, 'never')).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(resets).toEqual(['never', 'never']);
    pooled.destroy();
  });
});
