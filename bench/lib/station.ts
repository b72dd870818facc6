import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SCOPES } from '../../common/scopes.js';
import { loadConfig, type StationConfigInput } from '../../server/config/index.js';
import { createLogger } from '../../server/log/index.js';
import { startStation, type RunningStation } from '../../server/station/index.js';
import { httpsPost } from './https-post.js';

export interface BenchStation {
  station: RunningStation;
  dataDir: string;
  post: (
    path: string,
    body: string,
  ) => Promise<{ status: number; ms: number; json: { success: boolean; data: { status?: string } | null } }>;
  stop: () => Promise<void>;
}

/** A real HTTPS station on loopback with its own data directory and a keep-alive client. */
export async function benchStation(overrides: Partial<StationConfigInput> = {}): Promise<BenchStation> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-bench-'));
  const config = loadConfig({ env: {}, overrides: { port: 0, logLevel: 'silent', ...overrides, dataDir } });
  const station = await startStation(config, { logger: createLogger('silent'), consoleDir: null, waitForEngines: true });
  const token = station.tokens.create('bench', SCOPES).token;
  const ca = readFileSync(path.join(dataDir, 'tls', 'station-cert.pem'), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca });
  const url = new URL(station.url);
  return {
    station,
    dataDir,
    post: async (p, body) => {
      const a = await httpsPost(
        agent,
        new URL(p, url),
        { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body,
      );
      return { status: a.status, ms: a.ms, json: JSON.parse(a.body.toString('utf8')) };
    },
    stop: async () => {
      agent.destroy();
      await station.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
