import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { TokenService } from '../auth/index.js';
import type { StationConfig } from '../config/index.js';
import { createApp } from '../http/index.js';
import {
  adminOperations,
  documentOperations,
  faceOperations,
  galleryOperations,
  type OperationHandlers,
} from '../operations/index.js';
import { createLogger, type Logger } from '../log/index.js';
import {
  defaultModelsDir,
  DocumentEngine,
  FACE_MODEL_ID,
  FaceEngine,
  IDENTIFICATION_CENTRED_IMPOSTOR_MODEL,
  IDENTIFICATION_DIM,
  IDENTIFICATION_IMPOSTOR_MODEL,
  identificationView,
  IMPOSTOR_MODEL,
} from '../engines/index.js';
import { CENTRING_SHARE } from '../matching/index.js';
import { openGalleryIndex } from '../gallery-index/index.js';
import { searchIndexKey } from '../search/index.js';
import {
  backupDatabaseOffThread,
  dataKeyFromEnv,
  type Gallery,
  loadOrCreateDataKey,
  openPostgresGallery,
  openSqliteStation,
  PREVIOUS_DATA_KEY_ENV,
  recoverPendingRotation,
  ScheduledBackups,
  sealBlocksInBackground,
  type SqliteStation,
  stampedName,
  UNREADABLE_SAMPLE_LOG,
} from '../storage/index.js';
import { ApiError } from '../domain/index.js';
import { loadOrCreateTls } from '../tls/index.js';
import { STATION_VERSION, packageRoot } from '../version.js';

export interface StationOptions {
  logger?: Logger;
  /** Built console to serve at `/`; defaults to the package's dist/renderer. */
  consoleDir?: string | null;
  validateResponses?: boolean;
  /** The data key, when the host keeps it (Electron's safeStorage); otherwise the key file or ENROLLA_DATA_KEY. */
  dataKey?: Buffer;
  /** With a shared gallery, during a fleet key rotation: the key being replaced; otherwise ENROLLA_DATA_KEY_PREVIOUS. */
  previousDataKey?: Buffer | null;
  /** Wait for the engines' models before answering (tests); otherwise requests queue until they load. */
  waitForEngines?: boolean;
  /** When scheduled backups (`backups.enabled`) first look, and how often (tests); otherwise a minute and ten. */
  backupChecks?: { firstAfterMs: number; everyMs: number };
}

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

/** Opens the data directory, builds the HTTP surface and listens: the headless station. */
export async function startStation(config: StationConfig, options: StationOptions = {}): Promise<RunningStation> {
  const logger = options.logger ?? createLogger(config.logLevel);
  recoverPendingRotation(config.dataDir);
  const dataKey = options.dataKey ?? loadOrCreateDataKey(config.dataDir);
  const store = openSqliteStation(config.dataDir, dataKey, {
    // One damaged sample must not keep the station from starting: it is left out of 1:N and named here.
    onUnreadableSample: ({ idPersona, reason }) => logger.error({ idPersona, reason }, UNREADABLE_SAMPLE_LOG),
  });
  const engines: (FaceEngine | DocumentEngine | null)[] = [];
  const closables: (() => Promise<void>)[] = [];
  try {
    const shared = config.databaseUrl
      ? await openPostgresGallery({
          url: config.databaseUrl,
          dataKey,
          previousDataKey:
            options.previousDataKey !== undefined ? options.previousDataKey : dataKeyFromEnv(PREVIOUS_DATA_KEY_ENV),
          logger,
          station: hostname(),
          changeRetentionMs: config.databaseChangeRetentionDays * 86_400_000,
        })
      : null;
    const gallery: Gallery = shared ?? store.gallery;
    closables.push(() => gallery.close());
    const tokens = new TokenService(store.records);
    const bootstrapToken = tokens.hasActiveAdmin() ? null : tokens.create(BOOTSTRAP_TOKEN_NAME, ['admin']).token;
    const tls = config.tls.enabled ? await loadOrCreateTls(config.dataDir, config.tls) : null;
    const startedAt = new Date().toISOString();
    const faceConfig = config.engines.face;
    const modelsDir = config.modelsDir ?? defaultModelsDir();
    const faceEngine = faceConfig.enabled
      ? FaceEngine.start({
          modelsDir,
          ...(faceConfig.workers > 0 ? { workers: faceConfig.workers } : {}),
          maxQueue: faceConfig.maxQueue,
          warmUp: faceConfig.warmUp,
          networkRuntime: faceConfig.networkRuntime,
          borrowIdleCores: faceConfig.borrowIdleCores,
          onEvent: (event, detail) => logger.info({ event, detail }, 'motor facial'),
        })
      : null;
    const documentEngine = config.engines.document.enabled
      ? DocumentEngine.start({
          modelsDir,
          warmUp: config.engines.document.warmUp,
          onEvent: (event, detail) => logger.info({ event, detail }, 'motor de documentos'),
        })
      : null;
    engines.push(faceEngine, documentEngine);
    const policy = {
      impostors: IMPOSTOR_MODEL,
      identification: {
        view: identificationView,
        centring: CENTRING_SHARE,
        impostors: IDENTIFICATION_IMPOSTOR_MODEL,
        centredImpostors: IDENTIFICATION_CENTRED_IMPOSTOR_MODEL,
      },
      ...config.matching,
    };
    // The index starts from its snapshot when it matches the gallery, then follows the gallery's
    // feed (docs/search-index.md, docs/fleet-gallery.md). Its files hold derived templates: sealed
    // under a key of their own from the data key.
    const search = await openGalleryIndex(gallery, config.dataDir, {
      dim: IDENTIFICATION_DIM,
      leadingPart: true,
      modelId: FACE_MODEL_ID,
      logger,
      sealKey: searchIndexKey(dataKey),
      residentFloatBytes: config.search.residentFloatsMB * 2 ** 20,
      hugePages: config.search.hugePages,
    });
    const index = search.index;
    closables.push(() => search.close());
    // The next rebuild (a lost snapshot, a restored database) opens sealed blocks, not rows.
    if (!shared) {
      const stopSealing = sealBlocksInBackground(store.gallery, FACE_MODEL_ID, { logger, leading: IDENTIFICATION_DIM });
      closables.push(async () => stopSealing());
    }
    // A fleet's gallery is PostgreSQL's to back up; the schedule copies a station's own database.
    const backupsDir = config.backups.dir ?? path.join(config.dataDir, 'backups');
    const backups =
      !shared && config.backups.enabled
        ? new ScheduledBackups(
            store.records,
            {
              dataDir: config.dataDir,
              dir: backupsDir,
              intervalHours: config.backups.intervalHours,
              keep: config.backups.keep,
              key: dataKey,
              checkEveryMs: options.backupChecks?.everyMs,
              firstCheckAfterMs: options.backupChecks?.firstAfterMs,
            },
            (run) =>
              run.error
                ? logger.error({ backup: run }, 'respaldo programado fallido')
                : logger.info({ backup: run }, 'respaldo programado'),
          )
        : null;
    if (shared && config.backups.enabled)
      logger.warn('backups.enabled no se aplica a una galería compartida en PostgreSQL: respáldela con pg_dump');
    if (backups) {
      backups.start();
      closables.push(() => backups.close());
    }
    let listeningPort = config.port;
    const handlers: OperationHandlers = {
      ...galleryOperations(gallery),
      ...adminOperations(store.records, tokens, {
        // The local index answers when the shared gallery is out of reach.
        persons: () => gallery.countPersons().catch(() => index.personCount),
        version: STATION_VERSION,
        startedAt,
        engines: () => ({ face: faceEngine?.state ?? 'unavailable', document: documentEngine?.state ?? 'unavailable' }),
        tls: { enabled: tls !== null, fingerprint256: tls?.fingerprint256 ?? null },
        config,
        port: () => listeningPort,
        backups: () => ({ enabled: backups !== null, ...(backups?.status() ?? { last: null, nextDue: null }) }),
        createBackup: async () => {
          if (shared)
            throw new ApiError(
              'NOT_IMPLEMENTED',
              'La galería es compartida en PostgreSQL: se respalda con pg_dump (docs/fleet-gallery.md).',
            );
          const file = path.join(backupsDir, stampedName('enrolla', new Date()));
          const { persons, samples } = await backupDatabaseOffThread(config.dataDir, file, dataKey);
          return { file, persons, samples };
        },
      }),
      ...(faceEngine ? faceOperations({ engine: faceEngine, gallery, index, policy }) : {}),
      ...(documentEngine ? documentOperations({ engine: documentEngine, face: faceEngine, policy }) : {}),
    };
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
      modelsDir,
      validateResponses: options.validateResponses ?? false,
    });
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
    listeningPort = port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
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
