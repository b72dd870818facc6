import { hostname } from 'node:os';
import type { StationConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import {
  dataKeyFromEnv,
  type Gallery,
  loadOrCreateDataKey,
  openPostgresGallery,
  openSqliteStation,
  PREVIOUS_DATA_KEY_ENV,
  recoverPendingRotation,
  type SqliteStation,
  UNREADABLE_SAMPLE_LOG,
} from '../storage/index.js';
import type { StationOptions } from './station-options.js';

/**
 * The data key and the station's own SQLite file (its tokens and audit log always, its gallery
 * unless a fleet's), a key rotation left half-way finished first.
 */
export function openStationDatabase(
  config: StationConfig,
  options: StationOptions,
  logger: Logger,
): { dataKey: Buffer; store: SqliteStation } {
  recoverPendingRotation(config.dataDir);
  const dataKey = options.dataKey ?? loadOrCreateDataKey(config.dataDir);
  const store = openSqliteStation(config.dataDir, dataKey, {
    // One damaged sample must not keep the station from starting: it is left out of 1:N and named here.
    onUnreadableSample: ({ idPersona, reason }) => logger.error({ idPersona, reason }, UNREADABLE_SAMPLE_LOG),
  });
  return { dataKey, store };
}

/** The gallery: the fleet's PostgreSQL with `databaseUrl` (`shared`), otherwise the station's own file. */
export async function openStationGallery(
  config: StationConfig,
  store: SqliteStation,
  dataKey: Buffer,
  options: StationOptions,
  logger: Logger,
): Promise<{ gallery: Gallery; shared: boolean }> {
  if (!config.databaseUrl) return { gallery: store.gallery, shared: false };
  const gallery = await openPostgresGallery({
    url: config.databaseUrl,
    dataKey,
    previousDataKey: options.previousDataKey !== undefined ? options.previousDataKey : dataKeyFromEnv(PREVIOUS_DATA_KEY_ENV),
    logger,
    station: hostname(),
    changeRetentionMs: config.databaseChangeRetentionDays * 86_400_000,
  });
  return { gallery, shared: true };
}
