import path from 'node:path';
import type { TokenService } from '../auth/index.js';
import type { StationConfig } from '../config/index.js';
import { ApiError } from '../domain/index.js';
import {
  adminOperations,
  documentOperations,
  faceOperations,
  galleryOperations,
  type OperationHandlers,
} from '../operations/index.js';
import type { SearchIndex } from '../search/index.js';
import {
  backupDatabaseOffThread,
  type Gallery,
  type ScheduledBackups,
  type SqliteStation,
  stampedName,
} from '../storage/index.js';
import { STATION_VERSION } from '../version.js';
import { backupsDirOf } from './station-backups.js';
import { matchingPolicy, type StationEngines } from './station-engines.js';

export interface StationParts {
  config: StationConfig;
  dataKey: Buffer;
  store: SqliteStation;
  gallery: Gallery;
  shared: boolean;
  index: SearchIndex;
  tokens: TokenService;
  engines: StationEngines;
  backups: ScheduledBackups | null;
  tls: { fingerprint256: string } | null;
  startedAt: string;
  /** The port listened on, once known. */
  port: () => number;
}

/** Every operation the station serves, on its parts: the gallery's, the admin's, and each engine's that runs. */
export function stationOperations(parts: StationParts): OperationHandlers {
  const { config, dataKey, store, gallery, shared, index, tokens, backups, tls } = parts;
  const { faceEngine, documentEngine } = parts.engines;
  const policy = matchingPolicy(config);
  return {
    ...galleryOperations(gallery),
    ...adminOperations(store.records, tokens, {
      // The local index answers when the shared gallery is out of reach.
      persons: () => gallery.countPersons().catch(() => index.personCount),
      version: STATION_VERSION,
      startedAt: parts.startedAt,
      engines: () => ({ face: faceEngine?.state ?? 'unavailable', document: documentEngine?.state ?? 'unavailable' }),
      tls: { enabled: tls !== null, fingerprint256: tls?.fingerprint256 ?? null },
      config,
      port: parts.port,
      backups: () => ({ enabled: backups !== null, ...(backups?.status() ?? { last: null, nextDue: null }) }),
      createBackup: async () => {
        if (shared)
          throw new ApiError(
            'NOT_IMPLEMENTED',
            'La galería es compartida en PostgreSQL: se respalda con pg_dump (docs/fleet-gallery.md).',
          );
        const file = path.join(backupsDirOf(config), stampedName('enrolla', new Date()));
        const { persons, samples } = await backupDatabaseOffThread(config.dataDir, file, dataKey);
        return { file, persons, samples };
      },
    }),
    ...(faceEngine ? faceOperations({ engine: faceEngine, gallery, index, policy }) : {}),
    ...(documentEngine ? documentOperations({ engine: documentEngine, face: faceEngine, policy }) : {}),
  };
}
