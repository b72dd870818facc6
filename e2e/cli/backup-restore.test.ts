import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import {
  DATABASE_FILE,
  keyFile,
  loadOrCreateDataKey,
  openSqliteStation,
  REPLACED_DIR,
  writeKeyFile,
} from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';

// An operator's backup of a serving station with the installed command, and its restore after the
// gallery went wrong, on a real station with its face engine and real photos.
const BIN = new URL('../../bin/enrolla.js', import.meta.url).pathname;
const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-backup-'));
const elsewhere = mkdtempSync(path.join(tmpdir(), 'enrolla-backups-'));
const first = mkdtempSync(path.join(tmpdir(), 'enrolla-first-'));
const second = mkdtempSync(path.join(tmpdir(), 'enrolla-second-'));
afterAll(() => [dataDir, elsewhere, first, second].forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The station on `dir`, kept across its stops (closed with `station.close()`, not `stop()`). */
async function start(dir = dataDir) {
  const t = await startTestStation(
    { dataDir: dir, engines: { face: { enabled: true, workers: 1, maxQueue: 32 }, document: { enabled: false } } },
    { waitForEngines: true },
  );
  const token = t.token(['enroll', 'identify', 'admin']);
  const post = async (op: keyof typeof OPERATIONS, body: unknown) =>
    expectEnvelope(await t.post(OPERATIONS[op].path, body, token), 200).data as {
      status: string;
      candidates?: { idPersona: string }[];
    };
  const identify = async (photo: string) => {
    const answer = await post('identify', { template: await faceTemplate(photo) });
    return answer.status === 'IDENTIFY_OK' ? answer.candidates![0]!.idPersona : answer.status;
  };
  return { station: t.station, post, identify };
}

describe('enrolla backup and restore', () => {
  it('copies the gallery while the station serves, and puts it back once the station is stopped', async () => {
    const backup = path.join(elsewhere, 'lunes.db');
    const a = await start();
    expect((await a.post('enroll', { idPersona: 'obama', template: await faceTemplate('fr-obama.jpg') })).status).toBe('SUCCESS');
    expect((await a.post('enroll', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') })).status).toBe(
      'SUCCESS',
    );
    const made = await run('node', [BIN, 'backup', '--data-dir', dataDir, '--out', backup]);
    expect(made.stdout).toMatch(/Respaldo escrito en .*lunes\.db \(2 personas, 2 muestras/);
    expect(made.stdout).toMatch(/La clave de datos de la estación la abre/);
    await expect(run('node', [BIN, 'backup', '--data-dir', dataDir, '--out', backup])).rejects.toMatchObject({
      stderr: expect.stringMatching(/ya existe/),
    });

    // After the backup the gallery goes wrong: a person enrolled, another deleted by mistake.
    expect((await a.post('enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') })).status).toBe(
      'SUCCESS',
    );
    await a.post('deletePerson', { idPersona: 'obama' });
    expect(await a.identify('fr-obama2.jpg')).toBe('NOT_IDENTIFIED');
    // Not while the station runs: it holds the database, and would go on writing into the one replaced.
    await expect(run('node', [BIN, 'restore', backup, '--data-dir', dataDir])).rejects.toMatchObject({
      stderr: expect.stringMatching(/La estación está en marcha .*deténgala antes de restaurar un respaldo/),
    });
    expect(await a.identify('fr-rose_leslie1.jpg')).toBe('rose');
    await a.station.close();

    const restored = await run('node', [BIN, 'restore', backup, '--data-dir', dataDir]);
    expect(restored.stdout).toMatch(/Respaldo restaurado .*\(2 personas, 2 muestras/);
    const b = await start();
    try {
      expect(await b.identify('fr-obama2.jpg')).toBe('obama');
      expect(await b.identify('fr-kit_harington_test1.jpg')).toBe('kit');
      // Rose was enrolled after the backup: not even her own enrollment photo finds her.
      expect(await b.identify('fr-rose_leslie1.jpg')).toBe('NOT_IDENTIFIED');
      expect(b.station.store.records.listAudit({ limit: 10 }).map((e) => e.operation)).toContain('restoreBackup');
    } finally {
      await b.station.close();
    }

    // Nothing stored was lost: the replaced database, with Rose, is kept beside.
    const [replaced] = readdirSync(path.join(dataDir, REPLACED_DIR));
    const kept = mkdtempSync(path.join(elsewhere, 'kept-'));
    copyFileSync(path.join(dataDir, REPLACED_DIR, replaced!), path.join(kept, DATABASE_FILE));
    const store = openSqliteStation(kept, loadOrCreateDataKey(dataDir, {}));
    expect((await store.gallery.listPersons({ limit: 10, offset: 0 })).persons.map((p) => p.idPersona).sort()).toEqual([
      'kit',
      'rose',
    ]);
    expect(store.records.listAudit({ limit: 20 }).map((e) => e.operation)).toContain('createBackup');
    store.close();
  }, 240_000);

  it("moves a gallery to another station with the first one's key, and the second identifies its people", async () => {
    const a = await start(first);
    expect((await a.post('enroll', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') })).status).toBe(
      'SUCCESS',
    );
    await a.station.close();
    const backup = path.join(elsewhere, 'primera.db');
    await run('node', [BIN, 'backup', '--data-dir', first, '--out', backup]);
    // The first station's key carried apart, on media whose file system has no modes.
    const carried = path.join(elsewhere, 'clave-primera.key');
    copyFileSync(keyFile(first), carried);
    chmodSync(carried, 0o644);

    // The second station has its own key and someone else in its gallery.
    const b = await start(second);
    expect((await b.post('enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') })).status).toBe(
      'SUCCESS',
    );
    await b.station.close();
    await expect(run('node', [BIN, 'restore', backup, '--data-dir', second])).rejects.toMatchObject({
      stderr: expect.stringMatching(/otra clave de datos.*--key/),
    });
    const wrong = path.join(elsewhere, 'otra.key');
    writeKeyFile(wrong, randomBytes(32));
    await expect(run('node', [BIN, 'restore', backup, '--data-dir', second, '--key', wrong])).rejects.toMatchObject({
      stderr: expect.stringMatching(/La clave dada no abre/),
    });
    const restored = await run('node', [BIN, 'restore', backup, '--data-dir', second, '--key', carried]);
    expect(restored.stdout).toMatch(/Respaldo restaurado .*\(1 personas, 1 muestras/);
    expect(restored.stdout).toMatch(/La clave del respaldo es ahora la clave de datos de la estación/);
    expect(restored.stdout).toMatch(/La clave que la cifraba quedó en .*keys\/data-key-replaced-enrolla-.*\.key/);

    const c = await start(second);
    try {
      expect(await c.identify('fr-kit_harington_test1.jpg')).toBe('kit');
      expect(await c.identify('fr-rose_leslie1.jpg')).toBe('NOT_IDENTIFIED');
    } finally {
      await c.station.close();
    }
  }, 240_000);
});
