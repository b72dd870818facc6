import { TokenService } from '../auth/index.js';
import type { StationConfig } from '../config/index.js';
import type { DocumentEngine, FaceEngine } from '../engines/index.js';
import { createApp } from '../http/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { FACE_MODEL_ID, IDENTIFICATION_DIM } from '../engines/index.js';
import { type Gallery, sealBlocksInBackground, type SqliteStation } from '../storage/index.js';
import { loadOrCreateTls } from '../tls/index.js';
import { packageRoot } from '../version.js';
import path from 'node:path';
import { listen } from './listen.js';
import { startScheduledBackups } from './station-backups.js';
import { startEngines } from './station-engines.js';
import { openStationIndex } from './station-index.js';
import { stationOperations } from './station-operations.js';
import type { StationOptions } from './station-options.js';
import { openStationDatabase, openStationGallery } from './station-storage.js';

export type { StationOptions };

export interface RunningStation {
  url: string;
  port: number;
  fingerprint256: string | null;
  /** Printed once: an admin token created because the station had none. */
  bootstrapToken: string | null;
  /** This station's own SQLite file: its tokens and audit log always, its persons and samples unless a fleet's. */
  store: SqliteStation;
  /** Persons and samples: the same SQLite, or the fleet's PostgreSQL (`databaseUrl`). */
  gallery: Gallery;
  tokens: TokenService;
  logger: Logger;
  faceEngine: FaceEngine | null;
  documentEngine: DocumentEngine | null;
  close(): Promise<void>;
}

export const BOOTSTRAP_TOKEN_NAME = 'admin-inicial';

/**
 * Opens the data directory, builds the HTTP surface and listens: the headless station. Each step
 * is a function of this folder; what a step starts is stopped, in the same order, at close or when
 * a later step fails.
 */
export async function startStation(config: StationConfig, options: StationOptions = {}): Promise<RunningStation> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const { dataKey, store } = openStationDatabase(config, options, logger);
  const engines: (FaceEngine | DocumentEngine | null)[] = [];
  const closables: (() => Promise<void>)[] = [];
  try {
    const { gallery, shared } = await openStationGallery(config, store, dataKey, options, logger);
    closables.push(() => gallery.close());
    const tokens = new TokenService(store.records);
    const bootstrapToken = tokens.hasActiveAdmin() ? null : tokens.create(BOOTSTRAP_TOKEN_NAME, ['admin']).token;
    const tls = config.tls.enabled ? await loadOrCreateTls(config.dataDir, config.tls) : null;
    const startedAt = new Date().toISOString();
    const started = startEngines(config, logger);
    const { faceEngine, documentEngine } = started;
    engines.push(faceEngine, documentEngine);
    const search = await openStationIndex(config, gallery, dataKey, logger);
    closables.push(() => search.close());
    // The next rebuild (a lost snapshot, a restored database) opens sealed blocks, not rows.
    if (!shared) {
      const stopSealing = sealBlocksInBackground(store.gallery, FACE_MODEL_ID, { logger, leading: IDENTIFICATION_DIM });
      closables.push(async () => stopSealing());
    }
    const backups = startScheduledBackups(config, store, dataKey, shared, options, logger);
    if (backups) closables.push(() => backups.close());
    let listeningPort = config.port;
    const handlers = stationOperations({
      config,
      dataKey,
      store,
      gallery,
      shared,
      index: search.index,
      tokens,
      engines: started,
      backups,
      tls,
      startedAt,
      port: () => listeningPort,
    });
    if (options.waitForEngines) await Promise.all([faceEngine?.ready(), documentEngine?.ready()]);
    const defaultConsole = config.serveConsole ? path.join(packageRoot(), 'dist', 'renderer') : null;
    const consoleDir = options.consoleDir === undefined ? defaultConsole : options.consoleDir;
    const app = createApp({
      config,
      audit: store.records,
      tokens,
      logger,
      handlers,
      consoleDir,
      modelsDir: started.modelsDir,
      validateResponses: options.validateResponses ?? false,
    });
    const { server, port, url } = await listen(app, config, tls);
    listeningPort = port;
    logger.info({ url, fingerprint256: tls?.fingerprint256, dataDir: config.dataDir }, 'estación lista');
    return {
      url,
      port,
      fingerprint256: tls?.fingerprint256 ?? null,
      bootstrapToken,
      store,
      gallery,
      tokens,
      logger,
      faceEngine,
      documentEngine,
      async close() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await Promise.all([faceEngine?.close(), documentEngine?.close(), ...closables.map((c) => c())]);
        store.close();
      },
    };
  } catch (error) {
    await Promise.all([...engines.map((e) => e?.close()), ...closables.map((c) => c())]);
    store.close();
    throw error;
  }
}
