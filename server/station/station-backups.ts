import path from 'node:path';
import type { StationConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { ScheduledBackups, type SqliteStation } from '../storage/index.js';
import type { StationOptions } from './station-options.js';

/** Where backups go: the configured folder, or `backups/` in the data directory. */
export function backupsDirOf(config: StationConfig): string {
  return config.backups.dir ?? path.join(config.dataDir, 'backups');
}

/**
 * The scheduled backups of the station's own database, started when configured. A fleet's gallery
 * is PostgreSQL's to back up: there the setting is only warned about.
 */
export function startScheduledBackups(
  config: StationConfig,
  store: SqliteStation,
  dataKey: Buffer,
  shared: boolean,
  options: StationOptions,
  logger: Logger,
): ScheduledBackups | null {
  if (shared && config.backups.enabled)
    logger.warn('backups.enabled no se aplica a una galería compartida en PostgreSQL: respáldela con pg_dump');
  if (shared || !config.backups.enabled) return null;
  const backups = new ScheduledBackups(
    store.records,
    {
      dataDir: config.dataDir,
      dir: backupsDirOf(config),
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
  );
  backups.start();
  return backups;
}
