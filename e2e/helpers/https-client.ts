import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ClientResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: <T = unknown>() => T;
}

/**
 * Requests to a test station, trusting only its own certificate (pinned by CA), as a LAN
 * client would after pinning the fingerprint.
 */
export function makeClient(baseUrl: string, ca: string | null) {
  return function send(
    path: string,
    options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
  ): Promise<ClientResponse> {
    const url = new URL(path, baseUrl);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(url, { method: options.method ?? 'GET', headers: options.headers, ...(ca ? { ca } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (options.body !== undefined) req.write(options.body);
      req.end();
    });
  };
}
