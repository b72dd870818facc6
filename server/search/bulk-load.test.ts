import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gaussian, seededRandom as rng } from '../../test/random.js';
import { normalize } from '../matching/similarity.js';
import { openSqliteStation, type SqliteGallery } from '../storage/index.js';
import { EmbeddingIndex } from './embedding-index.js';
import { QuantizedEmbeddingIndex } from './quantized-index.js';
import { searchIndexKey } from './row-cipher.js';

// 300 dimensions: padded to 512, so the first pass reads 2-bit fast-scan codes, whose 32-row
// blocks two threads share when a batch ends mid-block.
const DIM = 300;
const MODEL = 'test-model@1';
const key = randomBytes(32);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function near(r: () => number, base: Float32Array, sigma: number): Float32Array {
  const v = normalize(base);
  return v.map((x) => x + (sigma * gaussian(r)) / Math.sqrt(DIM));
}

/**
 * 2,600 persons of 1 to 3 samples, a seventh of them deleted: the store's batches (ranges of
 * sample ids) then hold numbers of rows that are not multiples of 32.
 */
async function gallery(): Promise<{ dir: string; store: SqliteGallery; probes: Float32Array[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-bulk-'));
  dirs.push(dir);
  const r = rng(11);
  const store = openSqliteStation(dir, key).gallery;
  const probes: Float32Array[] = [];
  for (let p = 0; p < 2600; p++) {
    const base = Float32Array.from({ length: DIM }, () => gaussian(r));
    const samples = Array.from({ length: 1 + (p % 3) }, () => near(r, base, 0.4));
    await store.enroll(
      `p${p}`,
      samples.map((embedding) => ({ modelId: MODEL, embedding, quality: 80, thumbnail: null })),
      { replace: true },
    );
    if (p % 7 === 3) await store.deletePerson(`p${p}`);
    else if (p % 13 === 0) probes.push(near(r, base, 0.5));
  }
  return { dir, store, probes };
}

function exactFor(store: SqliteGallery): EmbeddingIndex {
  const exact = new EmbeddingIndex(DIM);
  store.feed.forEachEmbedding(MODEL, (id, e) => exact.add(id, e));
  return exact;
}

/** An index loaded through bulkLoader from the store's stream; counts the rows coded on the store's threads. */
async function bulkLoaded(store: SqliteGallery, dir: string, options: { sealed: boolean; reserve?: number; part?: number }) {
  const index = await QuantizedEmbeddingIndex.create(options.part ?? DIM, {
    threads: 2,
    firstPass: 32,
    ...(options.part ? { prefix: true } : {}),
    vectorFile: path.join(dir, `vectors-${options.sealed}-${options.reserve ?? 0}-${options.part ?? DIM}`),
    ...(options.sealed ? { sealKey: searchIndexKey(key) } : {}),
  });
  const bulk = index.bulkLoader()!;
  const rows = { coded: 0, floats: 0 };
  await store.feed.readAll(MODEL, {
    add: () => {
      throw new Error('every batch goes to the bulk loader');
    },
    bulk: () => ({
      sink: (atMost) => bulk.sink(options.reserve ?? atMost),
      take: (ids, embeddings, coded) => {
        rows[coded === undefined ? 'floats' : 'coded'] += ids.length;
        bulk.take(ids, embeddings, coded);
      },
      finish: bulk.finish,
    }),
  });
  return { index, rows };
}

function expectSameAnswers(index: QuantizedEmbeddingIndex, exact: EmbeddingIndex, probes: Float32Array[]) {
  // The sums of the samples' unit vectors too (identification centres on them), to float32 rounding.
  const sum = index.sampleSum();
  const want = exact.sampleSum();
  expect(Math.max(...sum.map((v, i) => Math.abs(v - want[i]!)))).toBeLessThan(1e-3);
  expect(Math.max(...want.map(Math.abs))).toBeGreaterThan(0.1);
  for (const probe of probes) {
    const got = index.search(probe, 10);
    const want = exact.search(probe, 10);
    expect(got.map((h) => h.idPersona)).toEqual(want.map((h) => h.idPersona));
    expect(got.map((h) => h.score)).toEqual(want.map((h) => h.score));
  }
}

describe('QuantizedEmbeddingIndex.bulkLoader', () => {
  let dir: string;
  let store: SqliteGallery;
  let probes: Float32Array[];
  let exact: EmbeddingIndex;
  beforeAll(async () => {
    ({ dir, store, probes } = await gallery());
    exact = exactFor(store);
  });

  it('gives the exact top-10, ids and scores, with every row coded on the threads that opened it, sealed or not', async () => {
    for (const sealed of [false, true]) {
      const { index, rows } = await bulkLoaded(store, dir, { sealed });
      expect(rows).toEqual({ coded: exact.sampleCount, floats: 0 });
      expect([index.personCount, index.sampleCount]).toEqual([exact.personCount, exact.sampleCount]);
      expectSameAnswers(index, exact, probes);
      await index.close();
    }
  });

  it('with `prefix`, codes the leading part of each stored row on the store’s threads, with the answers of those parts', async () => {
    const part = 200;
    const leading = new EmbeddingIndex(part);
    store.feed.forEachEmbedding(MODEL, (id, e) => leading.add(id, e.subarray(0, part)));
    const { index, rows } = await bulkLoaded(store, dir, { sealed: true, part });
    expect(rows).toEqual({ coded: leading.sampleCount, floats: 0 });
    expect([index.personCount, index.sampleCount]).toEqual([leading.personCount, leading.sampleCount]);
    expectSameAnswers(
      index,
      leading,
      probes.map((p) => p.subarray(0, part)),
    );
    await index.close();
  });

  it('adds the batches beyond the rows it reserved itself, and then takes enrollments and deletions as usual', async () => {
    const { index, rows } = await bulkLoaded(store, dir, { sealed: true, reserve: 2100 });
    expect(rows.coded).toBeGreaterThan(0);
    expect(rows.coded).toBeLessThanOrEqual(2100);
    expect(rows.floats).toBe(exact.sampleCount - rows.coded);
    expectSameAnswers(index, exact, probes);
    const after = exactFor(store);
    for (const id of ['p0', 'p13', 'p2574']) {
      index.remove(id);
      after.remove(id);
    }
    const r = rng(5);
    const added = Float32Array.from({ length: DIM }, () => gaussian(r));
    index.add('new', added);
    after.add('new', added);
    expectSameAnswers(index, after, [...probes, near(r, added, 0.3)]);
    await index.close();
  });
});
