import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Scope } from '../../common/scopes.js';
import { loadConfig } from '../../server/config/load.js';
import type { StationConfigInput } from '../../server/config/schema.js';
import { createLogger } from '../../server/log/logger.js';
import { startStation, type RunningStation, type StationOptions } from '../../server/station/index.js';
import { makeClient } from './https-client.js';

export interface TestStation {
  station: RunningStation;
  dataDir: string;
  /** Admin token created at first start. */
  adminToken: string;
  send: ReturnType<typeof makeClient>;
  /** POST JSON with a bearer token. */
  post: (path: string, body: unknown, token?: string | null) => ReturnType<ReturnType<typeof makeClient>>;
  token: (scopes: Scope[], name?: string) => string;
  stop: () => Promise<void>;
}

/** A real station on a free loopback port with its own data directory (a fresh one unless given), as in production. */
export async function startTestStation(
  overrides: Partial<StationConfigInput> = {},
  options: StationOptions = {},
): Promise<TestStation> {
  const dataDir = overrides.dataDir ?? mkdtempSync(path.join(tmpdir(), 'enrolla-test-'));
  const config = loadConfig({ env: {}, overrides: { port: 0, logLevel: 'silent', ...overrides, dataDir } });
  const station = await startStation(config, {
    logger: createLogger('silent'),
    consoleDir: null,
    validateResponses: true,
    ...options,
  });
  const ca = config.tls.enabled
    ? readFileSync(config.tls.certFile ?? path.join(dataDir, 'tls', 'station-cert.pem'), 'utf8')
    : null;
  const send = makeClient(station.url, ca);
  const adminToken = station.bootstrapToken!;
  let counter = 0;
  return {
    station,
    dataDir,
    adminToken,
    send,
    post: (p, body, token = adminToken) =>
      send(p, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    token: (scopes, name) => station.tokens.create(name ?? `prueba-${++counter}`, scopes).token,
    stop: async () => {
      await station.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
