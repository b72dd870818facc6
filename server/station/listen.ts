import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { StationConfig } from '../config/index.js';

/** The station's server (HTTPS with its certificate, or plain HTTP), listening: its port and address. */
export async function listen(
  app: RequestListener,
  config: StationConfig,
  tls: { cert: string; key: string } | null,
): Promise<{ server: Server; port: number; url: string }> {
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app)
    : createHttpServer(app);
  server.requestTimeout = config.requestTimeoutSeconds * 1000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  return { server, port, url };
}
