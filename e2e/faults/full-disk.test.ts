import Database from 'better-sqlite3';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { DATABASE_FILE } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';
import { mountingPermitted, mountSmallDisk, type SmallDisk, expectMatchingStillAnswers } from './tmpfs.js';

// A real full filesystem: the station's data directory on a 24 MiB tmpfs that another file fills up.
const permitted = mountingPermitted();
let disk: SmallDisk | null = null;
let t: TestStation;
let token: string;
let filler: string;

/** Takes every free byte of the filesystem, as a log or a backup growing beside the station would. */
function fillDisk(file: string): number {
  const fd = openSync(file, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0x55);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const post = (op: keyof typeof OPERATIONS, body: unknown) => t.post(OPERATIONS[op].path, body, token);

describe.skipIf(!permitted)('a full disk while enrolling', () => {
  beforeAll(async () => {
    const d = mountSmallDisk(24);
    disk = d;
    t = await startTestStation({ dataDir: path.join(d.root, 'datos') }, { waitForEngines: true });
    token = t.token(['enroll', 'verify', 'identify']);
    filler = path.join(d.root, 'relleno.bin');
  }, 240_000);
  afterAll(async () => {
    try {
      await t?.stop();
    } finally {
      disk?.unmount();
    }
  });

  it('answers 507, loses no acknowledged enrollment, keeps the file sound and serves reads; enrolls again once space is freed', async () => {
    const people = { obama: 'fr-obama.jpg', kit: 'fr-kit_harington2.jpg', rose: 'fr-rose_leslie1.jpg' } as const;
    for (const [idPersona, photo] of Object.entries(people)) {
      const res = await post('enroll', { idPersona, template: await faceTemplate(photo) });
      expect(expectEnvelope(res, 200).data).toMatchObject({ status: 'SUCCESS' });
    }

    const filled = fillDisk(filler);
    const template = await faceTemplate('human-stock-emotions-a-1.jpg');
    const acknowledged: string[] = [];
    let refusal: ReturnType<typeof expectEnvelope> | null = null;
    // The WAL may still have room for a commit or two; the disk is full once it needs to grow.
    for (let i = 0; i < 20 && !refusal; i++) {
      const idPersona = `lleno-${i}`;
      const res = await post('enroll', { idPersona, template, parametros: { duplicateSearch: false } });
      if (res.status === 200) acknowledged.push(idPersona);
      else refusal = expectEnvelope(res, 507);
    }
    expect(refusal, 'the station never ran out of space').not.toBeNull();
    expect(refusal!.error).toMatchObject({ codigo: 507, tipo: 'ERROR' });
    expect(refusal!.error.descripcion).toBe(
      'No queda espacio en disco para guardar los datos. No se guardó nada de esta solicitud.',
    );

    // Reads still answer on the full disk.
    await expectMatchingStillAnswers(post);
    const listed = expectEnvelope(await post('listPersons', {}), 200).data as { total: number };
    expect(listed.total).toBe(3 + acknowledged.length);

    // Every acknowledged enrollment is there, and the file is sound, read by a second connection.
    for (const id of [...Object.keys(people), ...acknowledged])
      expect((await t.station.gallery.listSamples(id)).length).toBeGreaterThan(0);
    const db = new Database(path.join(t.dataDir, DATABASE_FILE), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();

    rmSync(filler);
    const again = expectEnvelope(
      await post('enroll', { idPersona: 'despues', template, parametros: { duplicateSearch: false } }),
      200,
    );
    expect(again.data).toMatchObject({ status: 'SUCCESS' });
    console.info(
      `full disk: ${(filled / 2 ** 20).toFixed(1)} MiB filler, ${acknowledged.length} enrollments acknowledged before the first 507, all intact`,
    );
  }, 240_000);
});
