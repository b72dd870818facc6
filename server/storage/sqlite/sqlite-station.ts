import type { StationRecords } from '../records.js';
import type { UnreadableSample } from '../store-error.js';
import { SqliteGallery } from './sqlite-gallery.js';
import { sqliteRecords } from './sqlite-records.js';
import { closeStationDatabase, openStationDatabase } from './station-database.js';

/** The station's own SQLite file: its gallery (when it keeps one of its own), its tokens and its audit log. */
export interface SqliteStation {
  readonly gallery: SqliteGallery;
  readonly records: StationRecords;
  close(): void;
}

export interface SqliteStationOptions {
  /**
   * Where the bulk reads of the search index (a rebuild, a crash's catch-up) report a sample that
   * does not open, which they then leave out. Without it they fail on it, as every other read does.
   */
  onUnreadableSample?: (sample: UnreadableSample) => void;
}

/** Opens (creating and migrating as needed) the station database in `dataDir`, sealed with `dataKey`. */
export function openSqliteStation(dataDir: string, dataKey: Buffer, options: SqliteStationOptions = {}): SqliteStation {
  const database = openStationDatabase(dataDir, dataKey);
  try {
    return {
      gallery: new SqliteGallery(database, dataKey, options.onUnreadableSample ?? null),
      records: sqliteRecords(database.db),
      close: () => closeStationDatabase(database),
    };
  } catch (error) {
    closeStationDatabase(database);
    throw error;
  }
}
