import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import type { BackupsStatus } from '../../common/api/admin-schemas.js';
import { inspectDatabase } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

let t: TestStation | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

const backupsOf = async (station: TestStation) =>
  (expectEnvelope(await station.post(OPERATIONS.stationStatus.path, {}), 200).data as { backups: BackupsStatus }).backups;

// The station's own scheduled copies, as an administrator sees them in the station's status.
describe('scheduled backups of a station', () => {
  it('are off unless configured, and say so', async () => {
    t = await startTestStation({ engines: { face: { enabled: false }, document: { enabled: false } } });
    expect(await backupsOf(t)).toEqual({ enabled: false, last: null, nextDue: null });
  });

  it('an administrator copies the database now through the API; no other scope can', async () => {
    t = await startTestStation({ engines: { face: { enabled: false }, document: { enabled: false } } });
    const made = expectEnvelope(await t.post(OPERATIONS.createBackup.path, {}), 200).data as {
      file: string;
      persons: number;
      samples: number;
    };
    expect(made).toMatchObject({ persons: 0, samples: 0 });
    expect(path.dirname(made.file)).toBe(path.join(t.dataDir, 'backups'));
    expect(inspectDatabase(made.file, null)).toMatchObject({ persons: 0, tokens: 1 });
    const enrolling = t.token(['enroll', 'verify', 'identify']);
    expectEnvelope(await t.post(OPERATIONS.createBackup.path, {}, enrolling), 403);
    // Audited as the same operation the command, the schedule and the desktop record, by its token.
    await vi.waitFor(() =>
      expect(
        t!.station.store.records.listAudit({ limit: 5 }).map((e) => [e.operation, e.tokenName, e.httpStatus]),
      ).toContainEqual(['createBackup', 'admin-inicial', 200]),
    );
  });

  it('copy the database once started, and the status says where and when the next is due', async () => {
    t = await startTestStation(
      { engines: { face: { enabled: false }, document: { enabled: false } }, backups: { enabled: true, intervalHours: 12 } },
      { backupChecks: { firstAfterMs: 0, everyMs: 50 } },
    );
    let backups = await backupsOf(t);
    for (let i = 0; i < 100 && !backups.last; i++) {
      await new Promise((r) => setTimeout(r, 50));
      backups = await backupsOf(t);
    }
    expect(backups).toMatchObject({ enabled: true, last: { persons: 0, error: null } });
    const file = backups.last!.file!;
    expect(path.dirname(file)).toBe(path.join(t.dataDir, 'backups'));
    expect(existsSync(file)).toBe(true);
    expect(inspectDatabase(file, null)).toMatchObject({ persons: 0, tokens: 1 });
    expect(Date.parse(backups.nextDue!) - Date.parse(backups.last!.at)).toBe(12 * 3_600_000);
  });
});
