// A worker thread for the database work a running process does beside its own serving (the
// schedule, the API, the desktop's menu): a backup's steps, a file's integrity check, a restore's
// copy and fsync are synchronous SQLite and file work that would otherwise stall every request of
// the station, or the desktop's window, while they run (backup.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { StoreError } from '../../store-error.js';
import {
  backupDatabase,
  type BackupWorkerData,
  type BackupWorkerReply,
  type DatabaseSummary,
  inspectDatabase,
  restoreDatabase,
  storageFullAsStoreError,
} from '../backup.js';

async function run(data: BackupWorkerData): Promise<DatabaseSummary> {
  const key = data.key ? Buffer.from(data.key) : null;
  switch (data.job) {
    case 'backup':
      return backupDatabase(data.dataDir, data.out, key);
    case 'inspect':
      return inspectDatabase(data.file, key);
    case 'restore':
      return restoreDatabase(data.dataDir, data.backup, key, { by: data.by, now: new Date(data.at) });
  }
}

run(workerData as BackupWorkerData)
  .catch(storageFullAsStoreError)
  .then(
    (summary) => parentPort!.postMessage({ summary } satisfies BackupWorkerReply),
    (error: Error) =>
      parentPort!.postMessage({
        error: error.message,
        kind: error instanceof StoreError ? error.kind : null,
      } satisfies BackupWorkerReply),
  );
