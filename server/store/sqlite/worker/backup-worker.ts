// A worker thread for a backup made inside a running station (the schedule, the API, the desktop
// menu): the copy's steps, its check and its fsync are synchronous SQLite and file work that would
// otherwise stall every request of the station while they run (backup.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { StoreError } from '../../store.js';
import { backupDatabase, storageFullAsStoreError, type DatabaseSummary } from '../backup.js';

export interface BackupWorkerData {
  dataDir: string;
  out: string;
  key: Uint8Array | null;
}

export type BackupWorkerReply = { summary: DatabaseSummary } | { error: string; kind: StoreError['kind'] | null };

const { dataDir, out, key } = workerData as BackupWorkerData;
backupDatabase(dataDir, out, key ? Buffer.from(key) : null)
  .catch(storageFullAsStoreError)
  .then(
    (summary) => parentPort!.postMessage({ summary } satisfies BackupWorkerReply),
    (error: Error) =>
      parentPort!.postMessage({
        error: error.message,
        kind: error instanceof StoreError ? error.kind : null,
      } satisfies BackupWorkerReply),
  );
