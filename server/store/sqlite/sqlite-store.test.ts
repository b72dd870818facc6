import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { DATABASE_FILE, openSqliteStore, UNSEALED_SAMPLES } from './sqlite-store.js';

const key = randomBytes(32);

const sample = (seed: number) => ({
  modelId: 'test-model@1',
  embedding: Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed + i)),
  quality: 50 + seed,
  thumbnail: new Uint8Array([seed, 1, 2]),
});

describe('SQLite station store', () => {
  it('migrates once, runs in WAL mode, and closes into a file a read-only directory can open', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    openSqliteStore(dir, key).close();
    const store = openSqliteStore(dir, key);
    const open = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(open.pragma('journal_mode', { simple: true })).toBe('wal');
    open.close();
    store.close();
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
  });

  it('streams the same embeddings as it iterates, in batches opened on another thread, and reads them by persons; a tampered one names its person', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStore(dir, key);
    // More than one batch of 2048, with a person of two samples and one of another model between.
    for (let p = 0; p < 2100; p++)
      store.enrollPerson(`p${p}`, p === 7 ? [sample(p), sample(p + 1)] : [sample(p)], { replace: false });
    store.enrollPerson('other', [{ ...sample(1), modelId: 'other-model@1' }], { replace: false });
    const iterated: [string, number[]][] = [];
    store.forEachEmbedding('test-model@1', (id, e) => iterated.push([id, Array.from(e)]));
    const streamed: [string, number[]][] = [];
    await store.streamEmbeddings!('test-model@1', (ids, embeddings) =>
      ids.forEach((id, i) => streamed.push([id, Array.from(embeddings[i]!)])),
    );
    expect(streamed.length).toBe(2101);
    expect(streamed).toEqual(iterated);
    // A person's samples by persons (more than a batch of them): each once, in the order asked, none
    // for an unknown person or of another model.
    const asked = ['ghost', 'other', ...Array.from({ length: 2100 }, (_, p) => `p${2099 - p}`)];
    const byPerson: [string, number[][]][] = [];
    store.embeddingsOfPersons!(asked, 'test-model@1', (id, list) => byPerson.push([id, list.map((e) => Array.from(e))]));
    expect(byPerson).toEqual(
      asked.map((id) => [
        id,
        store
          .listSamples(id)
          .filter((s) => s.modelId === 'test-model@1')
          .map((s) => Array.from(s.embedding)),
      ]),
    );
    expect(byPerson.find(([id]) => id === 'p7')![1]).toHaveLength(2);
    store.close();

    const db = new Database(path.join(dir, DATABASE_FILE));
    const row = db.prepare("SELECT id, embedding FROM face_samples WHERE id_persona = 'p2050'").get() as {
      id: number;
      embedding: Buffer;
    };
    row.embedding[20]! ^= 1;
    db.prepare('UPDATE face_samples SET embedding = ? WHERE id = ?').run(row.embedding, row.id);
    db.close();
    const reopened = openSqliteStore(dir, key);
    await expect(reopened.streamEmbeddings!('test-model@1', () => undefined)).rejects.toMatchObject({
      message: expect.stringMatching(/p2050 ilegible/),
    });
    expect(() => reopened.forEachEmbedding('test-model@1', () => undefined)).toThrow(/p2050 ilegible/);
    expect(() => reopened.embeddingsOfPersons!(['p1', 'p2050'], 'test-model@1', () => undefined)).toThrow(/p2050 ilegible/);
    reopened.close();
  });

  it('seals at open a sample left in clear, found through its partial index, not by reading every sample', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStore(dir, key);
    store.enrollPerson('p1', [sample(1)], { replace: false });
    store.enrollPerson('p2', [sample(2)], { replace: false });
    store.close();
    const clear = Buffer.from(sample(2).embedding.buffer);
    let db = new Database(path.join(dir, DATABASE_FILE));
    db.prepare("UPDATE face_samples SET embedding = ?, thumbnail = NULL, sealed = 0 WHERE id_persona = 'p2'").run(clear);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${UNSEALED_SAMPLES}`).all() as { detail: string }[];
    expect(plan.map((p) => p.detail)).toEqual(['SCAN face_samples USING INDEX face_samples_unsealed']);
    db.close();
    const reopened = openSqliteStore(dir, key);
    expect(Array.from(reopened.listSamples('p2')[0]!.embedding)).toEqual(Array.from(sample(2).embedding));
    reopened.close();
    db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    const stored = db.prepare("SELECT embedding, sealed FROM face_samples WHERE id_persona = 'p2'").get() as {
      embedding: Buffer;
      sealed: number;
    };
    expect(stored.sealed).toBe(1);
    expect(stored.embedding.includes(clear)).toBe(false);
    db.close();
  });

  it('enrolls, adds and replaces samples, lists by prefix and deletes every trace', () => {
    const store = openSqliteStore(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')), key);
    expect(store.enrollPerson('30111222', [sample(1)], { replace: false })).toEqual({ created: true, samples: 1 });
    expect(store.enrollPerson('30111222', [sample(2), sample(3)], { replace: false })).toEqual({ created: false, samples: 3 });
    expect(store.enrollPerson('30111222', [sample(4)], { replace: true })).toEqual({ created: false, samples: 1 });
    store.enrollPerson('30999888', [sample(5)], { replace: false });
    store.enrollPerson('4011', [sample(6)], { replace: false });

    const [only] = store.listSamples('30111222');
    expect(only!.quality).toBe(54);
    expect(Array.from(only!.embedding)).toEqual(Array.from(sample(4).embedding));
    expect(store.listPersons({ prefix: '30', limit: 10, offset: 0 }).persons.map((p) => p.idPersona)).toEqual([
      '30111222',
      '30999888',
    ]);
    expect(store.listPersons({ limit: 1, offset: 1 })).toMatchObject({ total: 3, persons: [{ idPersona: '30999888' }] });

    expect(store.deletePerson('30111222')).toBe(1);
    expect(store.deletePerson('30111222')).toBeNull();
    expect(store.getPerson('30111222')).toBeNull();
    expect(store.listSamples('30111222')).toEqual([]);
    expect(store.countPersons()).toBe(2);
    store.close();
  });

  it('keeps tokens and the audit log', () => {
    const store = openSqliteStore(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')), key);
    const now = new Date().toISOString();
    store.insertToken({
      id: 'abc',
      name: 'kiosco',
      secretHash: Buffer.alloc(32, 7),
      scopes: ['verify', 'identify'],
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(store.findToken('abc')).toMatchObject({ name: 'kiosco', scopes: ['verify', 'identify'] });
    expect(store.revokeToken('abc', now)).toBe(true);
    expect(store.revokeToken('abc', now)).toBe(false);
    for (let i = 0; i < 5; i++) {
      store.appendAudit({
        at: now,
        txId: `tx${i}`,
        operation: 'verify',
        tokenName: 'kiosco',
        idPersona: null,
        outcome: 'NOT_VERIFIED',
        httpStatus: 200,
        auditToken: i === 4 ? 'caja-7' : null,
      });
    }
    const page = store.listAudit({ limit: 2 });
    expect(page.map((e) => e.txId)).toEqual(['tx4', 'tx3']);
    expect(page.map((e) => e.auditToken)).toEqual(['caja-7', null]);
    expect(store.listAudit({ limit: 10, beforeSeq: page[1]!.seq }).map((e) => e.txId)).toEqual(['tx2', 'tx1', 'tx0']);
    store.close();
  });

  it('seals embeddings and face images: a copy of the file alone reveals neither', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStore(dir, key);
    const jpegMarker = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const s = { ...sample(9), thumbnail: new Uint8Array([...jpegMarker, 1, 2, 3]) };
    store.enrollPerson('secreta', [s], { replace: false });
    expect(Array.from(store.listSamples('secreta')[0]!.embedding)).toEqual(Array.from(s.embedding));
    store.close();
    const files = ['', '-wal'].map((suffix) => {
      try {
        return readFileSync(path.join(dir, DATABASE_FILE + suffix));
      } catch {
        return Buffer.alloc(0);
      }
    });
    const everything = Buffer.concat(files);
    expect(everything.includes(Buffer.from(s.embedding.buffer))).toBe(false);
    expect(everything.includes(jpegMarker)).toBe(false);
    expect(everything.includes(Buffer.from('secreta'))).toBe(true); // the id is not biometric
  });

  it('refuses to open with another key, saying the data cannot be read without the original', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    openSqliteStore(dir, key).close();
    expect(() => openSqliteStore(dir, randomBytes(32))).toThrow(/no es la que cifró esta base/);
  });

  it('seals rows written before encryption at rest on the next start', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    openSqliteStore(dir, key).close();
    const raw = new Database(path.join(dir, DATABASE_FILE));
    const plain = Float32Array.from([1, 2, 3, 4]);
    raw.prepare("INSERT INTO persons VALUES ('antigua', 'x', 'x')").run();
    raw
      .prepare(
        "INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at, sealed) VALUES ('antigua', 'm', ?, 1, NULL, 'x', 0)",
      )
      .run(Buffer.from(plain.buffer));
    raw.close();
    const store = openSqliteStore(dir, key);
    expect(Array.from(store.listSamples('antigua')[0]!.embedding)).toEqual([1, 2, 3, 4]);
    store.close();
    const check = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(check.prepare('SELECT sealed FROM face_samples').get()).toEqual({ sealed: 1 });
    check.close();
  });
});
