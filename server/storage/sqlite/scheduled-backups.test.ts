import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectDatabase } from './backup.js';
import { ScheduledBackups } from './scheduled-backups.js';
import { openSqliteStation } from './sqlite-station.js';

const key = randomBytes(32);
const HOUR = 3_600_000;

async function station() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-sched-'));
  const store = openSqliteStation(dataDir, key);
  await store.gallery.enroll(
    'ana',
    [{ modelId: 'm@1', embedding: new Float32Array(8).fill(0.5), quality: 60, thumbnail: null }],
    {
      replace: false,
    },
  );
  return { dataDir, store, dir: path.join(dataDir, 'backups') };
}

describe('scheduled backups', () => {
  it('copy when the newest copy is older than the interval, keeping the newest few of their own', async () => {
    const { dataDir, store, dir } = await station();
    const backups = new ScheduledBackups(store.records, { dataDir, dir, intervalHours: 24, keep: 2, key });
    const t0 = new Date('2026-11-28T08:00:00Z');
    const first = await backups.runIfDue(t0);
    expect(first).toMatchObject({ persons: 1, error: null });
    expect(inspectDatabase(first!.file!, key)).toMatchObject({ persons: 1, key: 'opens' });
    // A restart the same day finds a fresh copy and does not copy again.
    expect(await backups.runIfDue(new Date(t0.getTime() + 23 * HOUR))).toBeNull();
    expect(backups.status(t0).nextDue).toBe('2026-11-29T08:00:00.000Z');
    // A manual copy and another file in the same folder are not the schedule's to delete.
    writeFileSync(path.join(dir, 'enrolla-2020-01-01T00-00-00-000Z.db'), 'manual');
    writeFileSync(path.join(dir, 'notas.txt'), 'x');
    for (let day = 1; day <= 3; day++) expect(await backups.runIfDue(new Date(t0.getTime() + day * 24 * HOUR))).not.toBeNull();
    expect(readdirSync(dir).sort()).toEqual([
      'enrolla-2020-01-01T00-00-00-000Z.db',
      'enrolla-auto-2026-11-30T08-00-00-000Z.db',
      'enrolla-auto-2026-12-01T08-00-00-000Z.db',
      'notas.txt',
    ]);
    const audit = store.records.listAudit({ limit: 10 }).filter((e) => e.operation === 'createBackup');
    expect(audit).toHaveLength(4);
    expect(audit[0]).toMatchObject({ tokenName: 'programado', outcome: 'SUCCESS', httpStatus: 0 });
    store.close();
  });

  it('reports a copy that fails, in its status and the audit log, without throwing', async () => {
    const { dataDir, store } = await station();
    const blocked = path.join(dataDir, 'no-es-carpeta');
    writeFileSync(blocked, 'un archivo donde iba la carpeta');
    const runs: unknown[] = [];
    const backups = new ScheduledBackups(store.records, { dataDir, dir: blocked, intervalHours: 1, keep: 3, key }, (r) =>
      runs.push(r),
    );
    const run = await backups.run();
    expect(run).toMatchObject({ file: null, persons: null, error: expect.stringMatching(/EEXIST|ENOTDIR/) });
    expect(runs).toEqual([run]);
    expect(backups.status().last).toEqual(run);
    expect(store.records.listAudit({ limit: 1 })[0]).toMatchObject({ operation: 'createBackup', outcome: 'ERROR' });
    store.close();
  });

  it('runs by itself once started, and stops with the station', async () => {
    const { dataDir, store, dir } = await station();
    const backups = new ScheduledBackups(store.records, {
      dataDir,
      dir,
      intervalHours: 1,
      keep: 3,
      key,
      firstCheckAfterMs: 10,
      checkEveryMs: 20,
    });
    backups.start();
    for (let i = 0; i < 250 && !existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    await backups.close();
    // Checked again and again, but copied once: the copy is younger than the interval.
    expect(readdirSync(dir).filter((f) => f.startsWith('enrolla-auto-'))).toHaveLength(1);
    store.close();
  });
});
