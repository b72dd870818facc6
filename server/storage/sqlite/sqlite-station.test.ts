import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { openSqliteStation } from './sqlite-station.js';
import { DATABASE_FILE, UNSEALED_SAMPLES } from './station-database.js';

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
    openSqliteStation(dir, key).close();
    const store = openSqliteStation(dir, key);
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
    const store = openSqliteStation(dir, key);
    const { gallery } = store;
    // More than one batch of 2048, with a person of two samples and one of another model between.
    for (let p = 0; p < 2100; p++)
      await gallery.enroll(`p${p}`, p === 7 ? [sample(p), sample(p + 1)] : [sample(p)], { replace: false });
    await gallery.enroll('other', [{ ...sample(1), modelId: 'other-model@1' }], { replace: false });
    const iterated: [string, number[]][] = [];
    gallery.feed.forEachEmbedding('test-model@1', (id, e) => iterated.push([id, Array.from(e)]));
    const streamed: [string, number[]][] = [];
    await gallery.feed.readAll('test-model@1', {
      add: (id, e) => streamed.push([id, Array.from(e)]),
      bulk: () => null,
    });
    expect(streamed.length).toBe(2101);
    expect(streamed).toEqual(iterated);
    // A person's samples by persons (more than a batch of them, and fewer, read on this thread):
    // each once, in the order asked, none for an unknown person or of another model.
    const asked = ['ghost', 'other', ...Array.from({ length: 2100 }, (_, p) => `p${2099 - p}`)];
    const stored = async (id: string) =>
      (await gallery.embeddingsOf(id)).filter((s) => s.modelId === 'test-model@1').map((s) => Array.from(s.embedding));
    for (const ids of [asked, asked.slice(-40)]) {
      const byPerson: [string, number[][]][] = [];
      await gallery.feed.embeddingsOfPersons(ids, 'test-model@1', (id, list) =>
        byPerson.push([id, list.map((e) => Array.from(e))]),
      );
      const expected: [string, number[][]][] = [];
      for (const id of ids) expected.push([id, await stored(id)]);
      expect(byPerson).toEqual(expected);
      expect(byPerson.find(([id]) => id === 'p7')![1]).toHaveLength(2);
    }
    store.close();

    const db = new Database(path.join(dir, DATABASE_FILE));
    const row = db.prepare("SELECT id, embedding FROM face_samples WHERE id_persona = 'p2050'").get() as {
      id: number;
      embedding: Buffer;
    };
    row.embedding[20]! ^= 1;
    db.prepare('UPDATE face_samples SET embedding = ? WHERE id = ?').run(row.embedding, row.id);
    db.close();
    const reopened = openSqliteStation(dir, key).gallery;
    await expect(reopened.feed.readAll('test-model@1', { add: () => undefined, bulk: () => null })).rejects.toMatchObject({
      message: expect.stringMatching(/p2050 ilegible/),
    });
    expect(() => reopened.feed.forEachEmbedding('test-model@1', () => undefined)).toThrow(/p2050 ilegible/);
    await expect(reopened.feed.embeddingsOfPersons(['p1', 'p2050'], 'test-model@1', () => undefined)).rejects.toThrow(
      /p2050 ilegible/,
    );
    await expect(reopened.embeddingsOf('p2050')).rejects.toThrow(/p2050 ilegible/);
    // A record shows its thumbnails without opening the embedding.
    expect(await reopened.listSamples('p2050')).toMatchObject([{ thumbnail: sample(2050).thumbnail }]);
  });

  it('seals at open a sample left in clear, found through its partial index, not by reading every sample', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStation(dir, key);
    await store.gallery.enroll('p1', [sample(1)], { replace: false });
    await store.gallery.enroll('p2', [sample(2)], { replace: false });
    store.close();
    const clear = Buffer.from(sample(2).embedding.buffer);
    let db = new Database(path.join(dir, DATABASE_FILE));
    db.prepare("UPDATE face_samples SET embedding = ?, thumbnail = NULL, sealed = 0 WHERE id_persona = 'p2'").run(clear);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${UNSEALED_SAMPLES}`).all() as { detail: string }[];
    expect(plan.map((p) => p.detail)).toEqual(['SCAN face_samples USING INDEX face_samples_unsealed']);
    db.close();
    const reopened = openSqliteStation(dir, key);
    expect(Array.from((await reopened.gallery.embeddingsOf('p2'))[0]!.embedding)).toEqual(Array.from(sample(2).embedding));
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

  it('enrolls, adds and replaces samples, lists by prefix and deletes every trace', async () => {
    const store = openSqliteStation(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')), key);
    const g = store.gallery;
    expect(await g.enroll('30111222', [sample(1)], { replace: false })).toEqual({ stored: true, created: true, samples: 1 });
    expect(await g.enroll('30111222', [sample(2), sample(3)], { replace: false })).toEqual({
      stored: true,
      created: false,
      samples: 3,
    });
    expect(await g.enroll('30111222', [sample(4)], { replace: true })).toEqual({ stored: true, created: false, samples: 1 });
    await g.enroll('30999888', [sample(5)], { replace: false });
    await g.enroll('4011', [sample(6)], { replace: false });

    const [only] = await g.listSamples('30111222');
    expect(only!.quality).toBe(54);
    expect(Array.from((await g.embeddingsOf('30111222'))[0]!.embedding)).toEqual(Array.from(sample(4).embedding));
    expect((await g.listPersons({ prefix: '30', limit: 10, offset: 0 })).persons.map((p) => p.idPersona)).toEqual([
      '30111222',
      '30999888',
    ]);
    expect(await g.listPersons({ limit: 1, offset: 1 })).toMatchObject({ total: 3, persons: [{ idPersona: '30999888' }] });

    expect(await g.deletePerson('30111222')).toBe(1);
    expect(await g.deletePerson('30111222')).toBeNull();
    expect(await g.getPerson('30111222')).toBeNull();
    expect(await g.listSamples('30111222')).toEqual([]);
    expect(await g.countPersons()).toBe(2);
    store.close();
  });

  it('keeps tokens and the audit log', () => {
    const station = openSqliteStation(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')), key);
    const store = station.records;
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
    station.close();
  });

  it('seals embeddings and face images: a copy of the file alone reveals neither', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStation(dir, key);
    const jpegMarker = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const s = { ...sample(9), thumbnail: new Uint8Array([...jpegMarker, 1, 2, 3]) };
    await store.gallery.enroll('secreta', [s], { replace: false });
    expect(Array.from((await store.gallery.embeddingsOf('secreta'))[0]!.embedding)).toEqual(Array.from(s.embedding));
    expect((await store.gallery.listSamples('secreta'))[0]!.thumbnail).toEqual(s.thumbnail);
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
    openSqliteStation(dir, key).close();
    expect(() => openSqliteStation(dir, randomBytes(32))).toThrow(/no es la que cifró esta base/);
  });

  it('seals rows written before encryption at rest on the next start', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    openSqliteStation(dir, key).close();
    const raw = new Database(path.join(dir, DATABASE_FILE));
    const plain = Float32Array.from([1, 2, 3, 4]);
    raw.prepare("INSERT INTO persons VALUES ('antigua', 'x', 'x')").run();
    raw
      .prepare(
        "INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at, sealed) VALUES ('antigua', 'm', ?, 1, NULL, 'x', 0)",
      )
      .run(Buffer.from(plain.buffer));
    raw.close();
    const store = openSqliteStation(dir, key);
    expect(Array.from((await store.gallery.embeddingsOf('antigua'))[0]!.embedding)).toEqual([1, 2, 3, 4]);
    store.close();
    const check = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(check.prepare('SELECT sealed FROM face_samples').get()).toEqual({ sealed: 1 });
    check.close();
  });
});
