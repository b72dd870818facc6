// What the station keeps and where: the gallery (SQLite or a fleet's PostgreSQL), the station's
// own records (tokens, audit log), its database file's backups and key, its data key. The rest of
// the station, the desktop shell and the benchmarks use this module, not the files behind it.
export type {
  ChangeListener,
  EnrollOutcome,
  FeedPosition,
  Gallery,
  GalleryFeed,
  IndexFill,
  NewSample,
  SampleListing,
  Screen,
  ScreenInput,
  StoredEmbedding,
} from './gallery.js';
export type { AuditLog, StationRecords, TokenRecord, TokenStore } from './records.js';
export { StoreError, UNREADABLE_SAMPLE_LOG, unreadableSampleMessage, type UnreadableSample } from './store-error.js';
export { SEARCH_INDEX_DIR } from './data-dir.js';
export { oneKey, SampleCodec, sampleAad } from './sample-codec.js';
export {
  DATA_KEY_BYTES,
  DATA_KEY_ENV,
  DataKeyError,
  dataKeyFromEnv,
  keyFile,
  loadDataKey,
  loadOrCreateDataKey,
  PREVIOUS_DATA_KEY_ENV,
  readKeyFile,
  writeKeyFile,
} from './data-key.js';

export { openSqliteStation, type SqliteStation, type SqliteStationOptions } from './sqlite/sqlite-station.js';
export type { SqliteGallery } from './sqlite/sqlite-gallery.js';
export { DATABASE_FILE } from './sqlite/station-database.js';
export { sealBlocksInBackground } from './sqlite/seal-blocks-in-background.js';
export { ScheduledBackups } from './sqlite/scheduled-backups.js';
export {
  appendLocalAudit,
  backupDatabase,
  backupDatabaseOffThread,
  type DatabaseSummary,
  inspectDatabase,
  inspectDatabaseOffThread,
  keyOpensFile,
  localAuditEntry,
  REPLACED_DIR,
  REPLACED_KEY_PREFIX,
  replacedKeyName,
  restoreDatabase,
  restoreDatabaseOffThread,
  type RestoreResult,
  stampedName,
} from './sqlite/backup.js';
export { assertDatabaseNotInUse } from './sqlite/station-lock.js';
export { recoverPendingRotation, rotateDataKey } from './sqlite/rotate-key.js';
export { type KeyFileRestore, restoreWithKeyFile } from './sqlite/restore-key.js';

export {
  describeDatabase,
  openPostgresGallery,
  type PostgresGallery,
  type PostgresGalleryOptions,
} from './postgres/postgres-gallery.js';
export { rotateFleetKeyAt } from './postgres/rotate-fleet-key.js';
export { CHANGE_RETENTION_DAYS } from './postgres/prune-changes.js';
