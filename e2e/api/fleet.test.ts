import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { POSTGRES_MISSING, postgresBinDir, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';

// Two real stations (real engine, own data directory and tokens) sharing one PostgreSQL gallery.
if (!postgresBinDir()) console.warn(`Se omiten las pruebas de flota: ${POSTGRES_MISSING}`);

interface Data {
  status: string;
  [key: string]: unknown;
}

let postgres: TestPostgres;
let url: string;
let dataKey: Buffer;
let a: TestStation;
let b: TestStation;
const tokens = new Map<TestStation, string>();

async function call(s: TestStation, op: keyof typeof OPERATIONS, body: unknown): Promise<Data> {
  return expectEnvelope(await s.post(OPERATIONS[op].path, body, tokens.get(s)), 200).data as Data;
}

const identifyOn = async (s: TestStation, photo: string) => call(s, 'identify', { template: await faceTemplate(photo) });

describe.skipIf(!postgresBinDir())('two stations, one PostgreSQL gallery', () => {
  beforeAll(async () => {
    postgres = await startTestPostgres();
    url = await postgres.createDatabase();
    dataKey = randomBytes(32); // the fleet's key (ENROLLA_DATA_KEY in production)
    const start = () =>
      startTestStation(
        { databaseUrl: url, engines: { face: { workers: 1 }, document: { enabled: false } } },
        { dataKey, waitForEngines: true },
      );
    [a, b] = await Promise.all([start(), start()]);
    for (const s of [a, b]) tokens.set(s, s.token(['enroll', 'verify', 'identify', 'admin']));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await postgres?.stop();
  });

  it('enrolled on one, identified and verified on the other; deleted there, gone on the first', async () => {
    expect(await call(a, 'enroll', { idPersona: 'obama', template: await faceTemplate('fr-obama.jpg') })).toMatchObject({
      status: 'SUCCESS',
    });
    await vi.waitFor(
      async () => expect(await identifyOn(b, 'fr-obama-test1.jpg')).toMatchObject({ candidates: [{ idPersona: 'obama' }] }),
      {
        timeout: 20_000,
        interval: 100,
      },
    );
    expect(await call(b, 'verify', { idPersona: 'obama', template: await faceTemplate('fr-obama-test1.jpg') })).toMatchObject({
      status: 'CHECK_CONFIDENCE',
    });
    expect(await call(b, 'getPerson', { idPersona: 'obama' })).toMatchObject({ person: { idPersona: 'obama', samples: 1 } });

    // The same face under another id, on the other station: a duplicate.
    expect(await call(b, 'enroll', { idPersona: 'otro', template: await faceTemplate('fr-obama2.jpg') })).toMatchObject({
      status: 'DUPLICATED_TEMPLATE',
      duplicatedIdPersona: 'obama',
    });

    expect(await call(b, 'deletePerson', { idPersona: 'obama' })).toMatchObject({ status: 'SUCCESS', samplesDeleted: 1 });
    await vi.waitFor(
      async () => expect(await identifyOn(a, 'fr-obama-test1.jpg')).toMatchObject({ status: 'WITHOUT_TEMPLATE' }),
      {
        timeout: 20_000,
        interval: 100,
      },
    );
    expect(await call(a, 'getPerson', { idPersona: 'obama' })).toMatchObject({ status: 'INEXISTENT' });
  });

  it('a fleet station does not copy its gallery itself: PostgreSQL backs it up, and the answer says so', async () => {
    const refused = expectEnvelope(await a.post(OPERATIONS.createBackup.path, {}, tokens.get(a)), 501);
    expect(refused.error.descripcion).toMatch(/PostgreSQL: se respalda con pg_dump/);
    expect(await call(a, 'stationStatus', {})).toMatchObject({ backups: { enabled: false } });
  });

  it('the same face enrolled on both stations at the same moment: one succeeds, the other is told it is a duplicate', async () => {
    const [ta, tb] = await Promise.all([faceTemplate('fr-kit_harington2.jpg'), faceTemplate('fr-kit_harington_test1.jpg')]);
    const results = await Promise.all([
      call(a, 'enroll', { idPersona: 'kit-a', template: ta }),
      call(b, 'enroll', { idPersona: 'kit-b', template: tb }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['DUPLICATED_TEMPLATE', 'SUCCESS']);
    const listed = await call(a, 'listPersons', { filtro: 'kit' });
    expect(listed).toMatchObject({ total: 1 });
  });

  it('without the database: enrollment answers 503 naming it, identification still answers from the local index', async () => {
    await vi.waitFor(
      async () => expect(await identifyOn(b, 'fr-kit_harington_test1.jpg')).toMatchObject({ status: 'IDENTIFY_OK' }),
      {
        timeout: 20_000,
        interval: 100,
      },
    );
    await postgres.pause();
    try {
      const res = await b.post(
        OPERATIONS.enroll.path,
        { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') },
        tokens.get(b),
      );
      expect(expectEnvelope(res, 503).error.descripcion).toMatch(
        /La base de datos de la galería \(PostgreSQL 127\.0\.0\.1:\d+\/enrolla_test_\w+\) no responde.*La identificación sigue respondiendo/,
      );
      expect(await identifyOn(b, 'fr-kit_harington_test1.jpg')).toMatchObject({
        status: 'IDENTIFY_OK',
        candidates: [{ idPersona: expect.stringMatching(/^kit-/) }],
      });
      expect(await call(b, 'stationStatus', {})).toMatchObject({ status: 'SUCCESS', persons: 1 });
    } finally {
      await postgres.resume();
    }
    expect(await call(b, 'enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') })).toMatchObject({
      status: 'SUCCESS',
    });
    await vi.waitFor(
      async () => expect(await identifyOn(a, 'fr-rose_leslie1.jpg')).toMatchObject({ candidates: [{ idPersona: 'rose' }] }),
      {
        timeout: 20_000,
        interval: 200,
      },
    );
  });

  it('the fleet key changed online: the stations holding both keys go on, one left with the old key is told why', async () => {
    // Phase 1 of docs/fleet-gallery.md for one station: restarted with the new key beside the old.
    const next = randomBytes(32);
    const c = await startTestStation(
      { databaseUrl: url, engines: { face: { workers: 1 }, document: { enabled: false } } },
      { dataKey: next, previousDataKey: dataKey, waitForEngines: true },
    );
    tokens.set(c, c.token(['enroll', 'verify', 'identify']));
    const cliDir = mkdtempSync(path.join(tmpdir(), 'enrolla-cli-'));
    try {
      const cli = (env: Record<string, string>) =>
        promisify(execFile)('node', [new URL('../../bin/enrolla.js', import.meta.url).pathname, 'key', 'rotate'], {
          env: { ...process.env, ENROLLA_DATA_DIR: cliDir, ENROLLA_DATABASE_URL: url, ...env },
        });
      // Without the key in use beside the new one, the command explains what it needs.
      await expect(cli({ ENROLLA_DATA_KEY: next.toString('base64') })).rejects.toMatchObject({
        stderr: expect.stringMatching(/ENROLLA_DATA_KEY_PREVIOUS/),
      });
      // Phase 2, with the stations running: the command an operator runs, as installed.
      const { stdout } = await cli({
        ENROLLA_DATA_KEY: next.toString('base64'),
        ENROLLA_DATA_KEY_PREVIOUS: dataKey.toString('base64'),
      });
      expect(stdout).toMatch(/la flota cifra ahora con la clave nueva; [1-9]\d* valores cifrados de nuevo/);

      // Enrolled under the old key by b, verified on c after the rotation.
      expect(await call(c, 'verify', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') })).toMatchObject({
        status: 'CHECK_CONFIDENCE',
      });
      expect(await call(c, 'enroll', { idPersona: 'obama', template: await faceTemplate('fr-obama.jpg') })).toMatchObject({
        status: 'SUCCESS',
      });
      // a still holds only the old key: it can no longer write, and says why.
      const refused = await a.post(
        OPERATIONS.enroll.path,
        { idPersona: 'otra', template: await faceTemplate('human-stock-emotions-a-1.jpg') },
        tokens.get(a),
      );
      expect(expectEnvelope(refused, 503).error.descripcion).toMatch(/no es la de la galería compartida/);
    } finally {
      rmSync(cliDir, { recursive: true, force: true });
      await c.stop();
    }
  }, 120_000);
});
