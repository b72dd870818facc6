import type { IncomingHttpHeaders } from 'node:http';
import { request, type Agent } from 'node:https';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

/**
 * One POST over a keep-alive agent. A pooled socket that the server closed for idleness (its
 * keepAliveTimeout) just as the request went out fails with ECONNRESET before the server read
 * anything, so that one case is sent again on a new socket (Node's documented `reusedSocket`
 * check); every other failure rejects.
 */
export function httpsPost(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs?: number,
): Promise<PostAnswer> {
  const started = performance.now();
  const attempt = (retried: boolean): Promise<PostAnswer> =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && err.code === 'ECONNRESET') resolve(attempt(true));
        else reject(err);
      });
      req.end(body);
    });
  return attempt(false);
}
