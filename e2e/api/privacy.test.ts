import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { DATABASE_FILE } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';

// Real engine, real photos: what a deletion and the audit log leave behind, read from the files.
let t: TestStation;
let token: string;

async function call(op: keyof typeof OPERATIONS, body: unknown, as = token) {
  return expectEnvelope(await t.post(OPERATIONS[op].path, body, as), 200).data as { status: string; [k: string]: unknown };
}

/** The bytes the station keeps on disk for its database: the file and its write-ahead log. */
function databaseBytes(): Buffer {
  const file = path.join(t.dataDir, DATABASE_FILE);
  return Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));
}

function sealedBlobsOf(idPersona: string): Buffer[] {
  const db = new Database(path.join(t.dataDir, DATABASE_FILE), { readonly: true });
  try {
    const rows = db
      .prepare<
        [string],
        { embedding: Buffer; thumbnail: Buffer | null }
      >('SELECT embedding, thumbnail FROM face_samples WHERE id_persona = ?')
      .all(idPersona);
    return rows.flatMap((r) => [r.embedding, ...(r.thumbnail ? [r.thumbnail] : [])]);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  t = await startTestStation({}, { waitForEngines: true });
  token = t.token(['enroll', 'verify', 'identify', 'extract', 'spoof'], 'mostrador 2');
}, 120_000);
afterAll(() => t?.stop());

describe('deleting a person', () => {
  it('removes their samples, images and index entries, and leaves no copy of them in the database files', async () => {
    await call('enroll', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') });
    await call('enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') });
    const blobs = sealedBlobsOf('kit');
    expect(blobs.length).toBeGreaterThanOrEqual(2); // an embedding and a thumbnail at least
    // 32-byte pieces of each sealed value (past version and nonce, and its tag): a thumbnail spans overflow pages.
    const pieces = blobs.flatMap((b) => [b.subarray(13, 45), b.subarray(b.length - 32)]);
    for (const piece of pieces) expect(databaseBytes().includes(piece)).toBe(true);

    expect(await call('deletePerson', { idPersona: 'kit' })).toMatchObject({
      status: 'SUCCESS',
      samplesDeleted: blobs.length / 2,
    });

    expect(await t.station.gallery.listSamples('kit')).toEqual([]);
    expect(await call('getPerson', { idPersona: 'kit' })).toMatchObject({ status: 'INEXISTENT' });
    expect(await call('verify', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington_test1.jpg') })).toMatchObject({
      status: 'INEXISTENT',
    });
    const search = await call('identify', {
      template: await faceTemplate('fr-kit_harington_test1.jpg'),
      parametros: { threshold: 0 },
    });
    expect((search.candidates as { idPersona: string }[]).map((c) => c.idPersona)).not.toContain('kit');
    // secure_delete zeroes the freed cells and pages; the WAL's older copies are folded in and truncated.
    const bytes = databaseBytes();
    for (const piece of pieces) expect(bytes.includes(piece), 'a piece of a deleted sealed value').toBe(false);
    expect(await call('getPerson', { idPersona: 'rose' })).toMatchObject({ status: 'SUCCESS' });
  }, 120_000);
});

describe('operation images', () => {
  it('verify, identify, extract and spoof store nothing: no sample, no file', async () => {
    const before = { files: readdirSync(t.dataDir, { recursive: true }).sort(), samples: countSamples() };
    const probe = await faceTemplate('fr-rose_leslie1.jpg');
    await call('verify', { idPersona: 'rose', template: probe });
    await call('identify', { template: probe });
    await call('extractFace', { template: probe });
    await call('spoof', { template: probe, parametros: { extractFace: true } });
    expect(countSamples()).toBe(before.samples);
    expect(readdirSync(t.dataDir, { recursive: true }).sort()).toEqual(before.files);
  }, 120_000);
});

function countSamples(): number {
  const db = new Database(path.join(t.dataDir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare<[], { n: number }>('SELECT count(*) AS n FROM face_samples').get()!.n;
  } finally {
    db.close();
  }
}

describe('the audit log', () => {
  it('keeps who did what and when, and nothing biometric', async () => {
    const template = await faceTemplate('fr-obama.jpg');
    const enrolled = await t.post(OPERATIONS.enroll.path, { idPersona: 'obama', template }, token);
    const refused = await t.post(OPERATIONS.createToken.path, { name: 'x', scopes: ['verify'] }, token);
    expectEnvelope(refused, 403);
    const entries = (await call('listAudit', {}, t.adminToken)).entries as Record<string, unknown>[];
    const enroll = entries.find((e) => e.txId === enrolled.headers['x-transaction-id']);
    expect(enroll).toMatchObject({
      operation: 'enroll',
      tokenName: 'mostrador 2',
      idPersona: 'obama',
      outcome: 'SUCCESS',
      httpStatus: 200,
    });
    expect(Date.now() - Date.parse(enroll!.at as string)).toBeLessThan(10 * 60_000);
    const denied = entries.find((e) => e.txId === refused.headers['x-transaction-id']);
    expect(denied).toMatchObject({ operation: 'createToken', tokenName: 'mostrador 2', outcome: 'ERROR_403', httpStatus: 403 });
    const deletion = entries.find((e) => e.operation === 'deletePerson');
    expect(deletion).toMatchObject({ tokenName: 'mostrador 2', idPersona: 'kit', outcome: 'SUCCESS' });

    // The table itself: text and integer columns only, no blob, no value longer than an id or a date.
    const db = new Database(path.join(t.dataDir, DATABASE_FILE), { readonly: true });
    const columns = db.prepare<[], { name: string; type: string }>('PRAGMA table_info(audit_log)').all();
    const rows = db.prepare<[], Record<string, unknown>>('SELECT * FROM audit_log').all();
    db.close();
    expect(columns.map((c) => c.name)).toEqual([
      'seq',
      'at',
      'tx_id',
      'operation',
      'token_name',
      'id_persona',
      'outcome',
      'http_status',
      'audit_token',
    ]);
    expect(columns.every((c) => c.type === 'TEXT' || c.type === 'INTEGER')).toBe(true);
    expect(rows.length).toBeGreaterThan(8);
    for (const row of rows) for (const value of Object.values(row)) expect(String(value).length).toBeLessThanOrEqual(64);
  }, 120_000);
});
