import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { DATABASE_FILE } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';
import { mountingPermitted, mountSmallDisk, type SmallDisk, expectMatchingStillAnswers } from './tmpfs.js';

// A real read-only filesystem: as root, permissions would not stop a write, a read-only mount does.
const permitted = mountingPermitted();
let disk: SmallDisk | null = null;
let t: TestStation;
let token: string;
let closed = false;

const post = (op: keyof typeof OPERATIONS, body: unknown) => t.post(OPERATIONS[op].path, body, token);
const READ_ONLY = 'El directorio de datos es de solo lectura o no se puede abrir. No se guardó nada de esta solicitud.';

describe.skipIf(!permitted)('a read-only data directory', () => {
  beforeAll(async () => {
    const d = mountSmallDisk(16);
    disk = d;
    const dataDir = path.join(d.root, 'datos');
    const writable = await startTestStation({ dataDir }, { waitForEngines: true });
    token = writable.token(['enroll', 'verify', 'identify', 'admin']);
    for (const [idPersona, photo] of [
      ['obama', 'fr-obama.jpg'],
      ['kit', 'fr-kit_harington2.jpg'],
    ] as const) {
      const res = await writable.post(OPERATIONS.enroll.path, { idPersona, template: await faceTemplate(photo) }, token);
      expect(expectEnvelope(res, 200).data).toMatchObject({ status: 'SUCCESS' });
    }
    await writable.station.close();
    d.remount('ro');
    t = await startTestStation({ dataDir }, { waitForEngines: true });
  }, 240_000);
  afterAll(async () => {
    try {
      if (!closed) await t?.station.close();
    } finally {
      disk?.unmount();
    }
  });

  it('starts, answers every read, and refuses every write with a 503 envelope that says why', async () => {
    await expectMatchingStillAnswers(post);
    expect(expectEnvelope(await post('getPerson', { idPersona: 'obama' }), 200).data).toMatchObject({ status: 'SUCCESS' });
    expect(expectEnvelope(await post('listPersons', {}), 200).data).toMatchObject({ total: 2 });
    expectEnvelope(await post('listAudit', {}), 200);

    const writes: [keyof typeof OPERATIONS, unknown][] = [
      ['enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') }],
      ['deletePerson', { idPersona: 'obama' }],
      ['createToken', { name: 'nuevo', scopes: ['verify'] }],
      ['revokeToken', { id: token.slice(4, 16) }],
    ];
    for (const [op, body] of writes) {
      const refused = expectEnvelope(await post(op, body), 503);
      expect(refused.error.descripcion, op).toBe(READ_ONLY);
    }
    expect(expectEnvelope(await post('listPersons', {}), 200).data).toMatchObject({ total: 2 });
  }, 120_000);

  it('leaves the database intact', async () => {
    await t.station.close();
    closed = true;
    (disk as SmallDisk).remount('rw');
    const db = new Database(path.join(disk!.root, 'datos', DATABASE_FILE), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare('SELECT count(*) AS n FROM face_samples').get()).toEqual({ n: 2 });
    db.close();
  });
});
