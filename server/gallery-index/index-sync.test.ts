import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { seededRandom as rng } from '../../test/random.js';
import { normalize } from '../matching/similarity.js';
import { EmbeddingIndex, nativeKernels, searchIndexKey, transparentHugePages } from '../search/index.js';
import { openSqliteStation, SEARCH_INDEX_DIR, type SqliteGallery } from '../storage/index.js';
import { openGalleryIndex } from './index-sync.js';

const DIM = 64;
const MODEL = 'test-model@1';
const key = randomBytes(32);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function vec(r: () => number): Float32Array {
  return Float32Array.from({ length: DIM }, () => r() - 0.5);
}

/** Enrolls (replacing), as the station does, with no index following (a write after the snapshot the index never saw). */
async function enroll(store: SqliteGallery, id: string, embeddings: Float32Array[]) {
  await store.enroll(
    id,
    embeddings.map((embedding) => ({ modelId: MODEL, embedding, quality: 80, thumbnail: null })),
    { replace: true },
  );
}

/** The exact answers for the gallery as the store holds it. */
function exactFor(store: SqliteGallery) {
  const exact = new EmbeddingIndex(DIM);
  store.feed.forEachEmbedding(MODEL, (id, e) => exact.add(id, e));
  return exact;
}

const embeddingsOf = async (store: SqliteGallery, id: string) => (await store.embeddingsOf(id)).map((s) => s.embedding);

/** A station's SQLite file, closed with the tests; its gallery. */
function openStore(dir: string): SqliteGallery {
  const station = openSqliteStation(dir, key);
  stations.push(station);
  return station.gallery;
}
const stations: { close(): void }[] = [];
afterAll(() => stations.forEach((s) => s.close()));

async function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-search-'));
  dirs.push(dir);
  const r = rng(7);
  const store = openStore(dir);
  for (let p = 0; p < 300; p++) await enroll(store, `p${p}`, [vec(r), vec(r)]);
  const probes: Float32Array[] = [];
  for (let i = 0; i < 12; i++) probes.push(i % 2 ? vec(r) : (await embeddingsOf(store, `p${i * 20}`))[0]!);
  return { dir, store, probes, r };
}

const snapshotFile = (dir: string) => path.join(dir, SEARCH_INDEX_DIR, `${MODEL.replace('@', '_')}.snapshot`);

async function answers(store: SqliteGallery, dir: string, probes: Float32Array[], logger?: { errors: number }) {
  const log = { info: () => {}, warn: () => {}, error: () => logger && logger.errors++ };
  const opened = await openGalleryIndex(store, dir, { dim: DIM, modelId: MODEL, logger: log });
  const results = probes.map((p) => opened.index.search(p, 10));
  return { opened, results };
}

describe('openGalleryIndex on a station gallery (SQLite)', () => {
  it('seals its snapshot under the key it is given: no row in clear, and another key means a rebuild', async () => {
    const { dir, store, probes } = await setup();
    const sealKey = searchIndexKey(key);
    const open = (k: Buffer) => openGalleryIndex(store, dir, { dim: DIM, modelId: MODEL, sealKey: k });
    const first = await open(sealKey);
    expect(first.source).toBe('gallery');
    const expected = probes.map((p) => first.index.search(p, 10));
    await first.close();
    const bytes = readFileSync(snapshotFile(dir));
    const rows: Buffer[] = [];
    store.feed.forEachEmbedding(MODEL, (_, e) => rows.push(Buffer.from(normalize(e).buffer).subarray(0, 32)));
    expect(rows.filter((row) => bytes.includes(row))).toEqual([]);
    const again = await open(sealKey);
    expect(again.source).toBe('snapshot');
    expect(probes.map((p) => again.index.search(p, 10))).toEqual(expected);
    await again.close();
    const otherKey = await open(searchIndexKey(randomBytes(32)));
    expect(otherKey.source).toBe('gallery');
    expect(probes.map((p) => otherKey.index.search(p, 10))).toEqual(expected);
    await otherKey.close();
  });

  it("rebuilds from the store's sealed blocks of each embedding's leading part as from its rows", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-search-'));
    dirs.push(dir);
    const r = rng(11);
    const store = openStore(dir);
    // Stored vectors longer than the index's part, over more than two blocks' ranges of ids.
    const long = () => Float32Array.from({ length: DIM + 16 }, () => r() - 0.5);
    for (let p = 0; p < 2600; p++) await enroll(store, `p${p}`, [long(), long()]);
    const probes: Float32Array[] = [];
    for (let i = 0; i < 12; i++) probes.push(i % 2 ? long() : (await embeddingsOf(store, `p${i * 200}`))[1]!);
    const rebuild = async () => {
      rmSync(path.join(dir, SEARCH_INDEX_DIR), { recursive: true, force: true });
      const opened = await openGalleryIndex(store, dir, { dim: DIM, modelId: MODEL, leadingPart: true });
      expect(opened.source).toBe('gallery');
      const results = probes.map((p) => opened.index.search(p, 10));
      expect(opened.index.personCount).toBe(2600);
      await opened.close();
      return results;
    };
    const fromRows = await rebuild();
    expect(fromRows[0]![0]!.idPersona).toBe('p0');
    expect(store.sealEmbeddingBlocks(MODEL, 10, DIM)).toEqual({ sealed: 2, missing: 0 });
    expect(await rebuild()).toEqual(fromRows);
  });

  it('rebuilds from the store at first, loads its snapshot after a clean stop, with the same answers', async () => {
    const { dir, store, probes } = await setup();
    const exact = exactFor(store);
    const first = await answers(store, dir, probes);
    expect(first.opened.source).toBe('gallery');
    expect(first.results).toEqual(probes.map((p) => exact.search(p, 10)));
    await first.opened.close();
    expect(existsSync(snapshotFile(dir))).toBe(true);

    const second = await answers(store, dir, probes);
    expect(second.opened.source).toBe('snapshot');
    expect(second.results).toEqual(first.results);
    expect(second.opened.index.personCount).toBe(300);
    await second.opened.close();
  });

  it.runIf(transparentHugePages() === 'madvise' && nativeKernels().kernels !== null)(
    'asks for huge pages unless told not to, from the store and from its snapshot, and its ready line says which',
    async () => {
      const { dir, store } = await setup();
      const ready: { source: string; hugePages: string }[] = [];
      const logger = {
        info: (fields: unknown, msg?: string) => {
          const { source, hugePages } = fields as { source: string; hugePages: string };
          if (msg === 'índice de búsqueda listo') ready.push({ source, hugePages });
        },
        warn: () => {},
        error: () => {},
      };
      for (const hugePages of [true, true, false]) {
        const opened = await openGalleryIndex(store, dir, { dim: DIM, modelId: MODEL, logger, hugePages });
        await opened.close();
      }
      // 300 persons at 64-d: the whole memory is smaller than one huge page.
      expect(ready).toEqual([
        { source: 'gallery', hugePages: 'no (smaller than a huge page)' },
        { source: 'snapshot', hugePages: 'no (smaller than a huge page)' },
        { source: 'snapshot', hugePages: 'no (turned off)' },
      ]);
    },
  );

  it('follows enrollments and deletions, and after a crash loads the snapshot and re-reads the persons changed since', async () => {
    const { dir, store, probes, r } = await setup();
    const a = await answers(store, dir, probes);
    // Enrolled and deleted while it follows: in the index as soon as the call returns.
    const late = vec(r);
    const added = vec(r);
    await enroll(store, 'late', [late]);
    await store.enroll('late', [{ modelId: MODEL, embedding: added, quality: 80, thumbnail: null }], { replace: false });
    await store.deletePerson('p0');
    expect(a.opened.index.search(late, 1)[0]!.idPersona).toBe('late');
    expect(a.opened.index.search(added, 1)[0]!.idPersona).toBe('late');
    expect(a.opened.index.search(probes[0]!, 10).some((h) => h.idPersona === 'p0')).toBe(false);
    expect(a.opened.index.personCount).toBe(300);
    await a.opened.close();

    // Changes committed after the snapshot, never seen by the index (the process died): a new
    // person, a deleted one, one whose samples were replaced.
    await enroll(store, 'after-crash', [probes[1]!]);
    await store.deletePerson('p20');
    const moved = vec(r);
    await enroll(store, 'p40', [moved]);
    const b = await answers(store, dir, probes);
    expect(b.opened.source).toBe('snapshot+changes');
    expect(b.opened.caughtUp).toBe(3);
    expect(b.results).toEqual(probes.map((p) => exactFor(store).search(p, 10)));
    expect(b.opened.index.search(probes[1]!, 1)[0]!.idPersona).toBe('after-crash');
    expect(b.opened.index.search(late, 1)[0]!.idPersona).toBe('late');
    expect(b.opened.index.search(moved, 1)[0]).toEqual({ idPersona: 'p40', score: expect.closeTo(1, 5) as number });
    expect(b.opened.index.personCount).toBe(300);
    await b.opened.close();

    // The clean stop saved a snapshot and forgot the journal up to it: the next start needs neither.
    const c = await answers(store, dir, probes);
    expect(c.opened.source).toBe('snapshot');
    expect(c.results).toEqual(b.results);
    await c.opened.close();
  });

  it("after a crash with more than a batch of persons changed, reads them again on the store's threads, with the same answers", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-search-'));
    dirs.push(dir);
    const r = rng(11);
    const store = openStore(dir);
    for (let p = 0; p < 9000; p++) await enroll(store, `p${p}`, [vec(r)]);
    const probes: Float32Array[] = [];
    for (let i = 0; i < 12; i++) probes.push(i % 2 ? vec(r) : (await embeddingsOf(store, `p${i * 700}`))[0]!);
    await (await answers(store, dir, probes)).opened.close();
    // 2,100 persons new, 100 deleted, 100 given two samples: more than one batch of the catch-up.
    for (let p = 0; p < 2100; p++) await enroll(store, `new${p}`, [vec(r)]);
    for (let p = 0; p < 100; p++) await store.deletePerson(`p${p * 3}`);
    for (let p = 0; p < 100; p++) await enroll(store, `p${p * 3 + 1}`, [vec(r), vec(r)]);
    type Reads = Record<'embeddingsOfPersonsOnThreads' | 'embeddingsOfPersonsNow', () => unknown>;
    const onThreads = vi.spyOn(store.feed as unknown as Reads, 'embeddingsOfPersonsOnThreads');
    const inline = vi.spyOn(store.feed as unknown as Reads, 'embeddingsOfPersonsNow');
    for (const id of ['new5', 'p1', 'p4']) probes.push((await embeddingsOf(store, id))[0]!);
    const b = await answers(store, dir, probes);
    expect(b.opened.source).toBe('snapshot+changes');
    expect(b.opened.caughtUp).toBe(2300);
    expect([onThreads.mock.calls.length, inline.mock.calls.length]).toEqual([1, 0]);
    expect(b.opened.index.personCount).toBe(9000 + 2100 - 100);
    const exact = exactFor(store);
    expect(b.results).toEqual(probes.map((p) => exact.search(p, 10)));
    expect(b.opened.index.search((await embeddingsOf(store, 'p1'))[1]!, 1)[0]!.idPersona).toBe('p1');
    expect(b.opened.index.search(probes[0]!, 10).some((h) => h.idPersona === 'p0')).toBe(false);
    await b.opened.close();
  }, 60_000);

  it('rebuilds from the store when the journal does not cover the gap or lists most of the gallery', async () => {
    const { dir, store, probes, r } = await setup();
    await (await answers(store, dir, probes)).opened.close();
    await enroll(store, 'gap', [vec(r)]);
    // The journal's entry for that enrollment lost (as a restored or hand-edited database could be).
    store.feed.forgetThrough(store.feed.position);
    const b = await answers(store, dir, probes);
    expect(b.opened.source).toBe('gallery');
    expect(b.results).toEqual(probes.map((p) => exactFor(store).search(p, 10)));
    await b.opened.close();

    // Every person re-enrolled after the snapshot: reading them one by one is no quicker than all.
    for (let p = 0; p < 300; p++) await enroll(store, `p${p}`, [vec(r)]);
    const c = await answers(store, dir, probes);
    expect(c.opened.source).toBe('gallery');
    expect(c.results).toEqual(probes.map((p) => exactFor(store).search(p, 10)));
    await c.opened.close();
  });

  it('rebuilds from the store when the snapshot is damaged, never answering from it', async () => {
    const { dir, store, probes } = await setup();
    const exact = probes.map((p) => exactFor(store).search(p, 10));
    await (await answers(store, dir, probes)).opened.close();
    const file = snapshotFile(dir);
    flipByte(file, Math.floor(statSync(file).size * 0.1)); // within the checksummed codes
    const b = await answers(store, dir, probes);
    expect(b.opened.source).toBe('gallery');
    expect(b.results).toEqual(exact);
    await b.opened.close();

    // A float row damaged (not covered by the CRC, checked per row when read): the search that
    // reads it rebuilds the index and answers from the rebuilt one.
    flipByte(file, statSync(file).size - 2);
    const seen = { errors: 0 };
    const c = await answers(store, dir, probes.slice(0, 0), seen);
    expect(c.opened.source).toBe('snapshot');
    const lastPerson = 'p299';
    const probe = (await embeddingsOf(store, lastPerson))[1]!;
    expect(c.opened.index.search(probe, 10)).toEqual(exactFor(store).search(probe, 10));
    expect(seen.errors).toBe(1);
    expect(probes.map((p) => c.opened.index.search(p, 10))).toEqual(exact);
    await c.opened.close();
  });
});

function flipByte(file: string, at: number) {
  const fd = openSync(file, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, at);
  b[0] = b[0]! ^ 0x5a;
  writeSync(fd, b, 0, 1, at);
  closeSync(fd);
}
