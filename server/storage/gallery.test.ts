import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { postgresBinDir, postgresForFile } from '../../e2e/helpers/postgres.js';
import { createLogger } from '../log/logger.js';
import { keepInStep } from '../gallery-index/index-sync.js';
import { EmbeddingIndex } from '../search/index.js';
import { cosine } from '../matching/similarity.js';
import type { Gallery, ScreenInput } from './gallery.js';
import { openPostgresGallery } from './postgres/postgres-gallery.js';
import { openSqliteStation } from './sqlite/sqlite-station.js';
import { StoreError } from './store-error.js';

// One behaviour, two backends: the same cases run on SQLite and on a real PostgreSQL.
const MODEL = 'test-model@1';
const DIM = 8;
const key = randomBytes(32);
const logger = createLogger('silent');

/** A pseudo-random direction per seed: distinct seeds are far apart (cosine well under 0.99). */
function embedding(seed: number): Float32Array {
  let x = (seed * 2654435761) >>> 0 || 1;
  return Float32Array.from({ length: DIM }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 2 ** 32) * 2 - 1;
  });
}
const sample = (seed: number) => ({
  modelId: MODEL,
  embedding: embedding(seed),
  quality: 50 + seed,
  thumbnail: new Uint8Array([seed, 1, 2]),
});

interface Station {
  gallery: Gallery;
  index: EmbeddingIndex;
}

interface Backend {
  /** A new station on a new, empty gallery. */
  fresh(): Promise<Station>;
  /** Another station on the gallery of `of` (PostgreSQL only: one SQLite file has one station). */
  another?(of: Station): Promise<Station>;
}

const postgres = postgresForFile();
const urls = new Map<Gallery, string>();

async function attach(gallery: Gallery): Promise<Station> {
  const index = new EmbeddingIndex(DIM);
  await keepInStep(gallery, index, MODEL);
  postgres.defer(() => gallery.close());
  return { gallery, index };
}

const sqlite: Backend = {
  async fresh() {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-gallery-'));
    const store = openSqliteStation(dir, key);
    postgres.defer(() => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    });
    return attach(store.gallery);
  },
};

const postgresBackend: Backend = {
  async fresh() {
    const url = await postgres.cluster.createDatabase();
    const station = await attach(await openPostgresGallery({ url, dataKey: key, logger, station: 'a' }));
    urls.set(station.gallery, url);
    return station;
  },
  async another(of) {
    const url = urls.get(of.gallery)!;
    const station = await attach(await openPostgresGallery({ url, dataKey: key, logger, station: 'b' }));
    urls.set(station.gallery, url);
    return station;
  },
};

/** The screen face enrollment uses: the same face under another id, or another face under this id. */
const screenFor =
  (s: Station, id: string, probe: Float32Array) =>
  ({ existing: stored, candidates }: ScreenInput) => {
    const hit =
      candidates === 'index'
        ? s.index.search(probe, 1, id)[0]
        : [...candidates]
            .filter(([other]) => other !== id)
            .map(([other, list]) => ({ idPersona: other, score: Math.max(...list.map((e) => cosine(e, probe))) }))
            .sort((x, y) => y.score - x.score)[0];
    if (hit && hit.score > 0.99) return `DUPLICATED_TEMPLATE:${hit.idPersona}`;
    if (stored.length > 0 && !stored.some((x) => x.embedding.every((v, i) => Math.abs(v - probe[i]!) < 1e-6)))
      return 'DUPLICATED_SUBJECT_ID';
    return null;
  };

describe.each([
  ['sqlite', sqlite],
  ['postgres', postgresBackend],
] as const)('gallery on %s', (name, backend) => {
  const skip = name === 'postgres' && !postgresBinDir();

  it.skipIf(skip)('enrolls, appends, replaces, lists by prefix, reads samples back, deletes', async () => {
    const { gallery, index } = await backend.fresh();
    expect(await gallery.enroll('30111222', [sample(1)], { replace: false })).toEqual({
      stored: true,
      created: true,
      samples: 1,
    });
    expect(await gallery.enroll('30111222', [sample(2), sample(3)], { replace: false })).toEqual({
      stored: true,
      created: false,
      samples: 3,
    });
    expect(await gallery.enroll('30111222', [sample(4)], { replace: true })).toEqual({
      stored: true,
      created: false,
      samples: 1,
    });
    await gallery.enroll('30999888', [sample(5)], { replace: false });
    await gallery.enroll('4011', [sample(6)], { replace: false });
    await gallery.enroll('3ñandú', [sample(7)], { replace: false });

    const [only] = await gallery.listSamples('30111222');
    expect(only).toMatchObject({ idPersona: '30111222', modelId: MODEL, quality: 54, thumbnail: new Uint8Array([4, 1, 2]) });
    expect(only).not.toHaveProperty('embedding');
    expect(Date.parse(only!.createdAt)).not.toBeNaN();
    const [stored] = await gallery.embeddingsOf('30111222');
    expect(stored!.modelId).toBe(MODEL);
    expect(Array.from(stored!.embedding)).toEqual(Array.from(embedding(4)));

    const listed = await gallery.listPersons({ prefix: '30', limit: 10, offset: 0 });
    expect(listed.total).toBe(2);
    expect(listed.persons.map((p) => p.idPersona)).toEqual(['30111222', '30999888']);
    expect(await gallery.listPersons({ prefix: '3', limit: 10, offset: 0 })).toMatchObject({ total: 3 });
    expect(await gallery.listPersons({ limit: 2, offset: 1 })).toMatchObject({
      total: 4,
      persons: [{ idPersona: '30999888' }, { idPersona: '3ñandú' }],
    });
    expect(await gallery.getPerson('4011')).toMatchObject({ idPersona: '4011', samples: 1 });
    expect(await gallery.countPersons()).toBe(4);

    expect(index.personCount).toBe(4);
    expect(index.search(embedding(4), 1)[0]).toMatchObject({ idPersona: '30111222' });
    expect(index.search(embedding(1), 1)[0]?.idPersona).not.toBe('30111222'); // replaced

    expect(await gallery.deletePerson('30111222')).toBe(1);
    expect(await gallery.deletePerson('30111222')).toBeNull();
    expect(await gallery.getPerson('30111222')).toBeNull();
    expect(await gallery.listSamples('30111222')).toEqual([]);
    expect(await gallery.embeddingsOf('30111222')).toEqual([]);
    expect(await gallery.countPersons()).toBe(3);
    expect(index.personCount).toBe(3);
  });

  it.skipIf(skip)("tells the index this station's writes with the embeddings they stored, nothing read back", async () => {
    const { gallery } = await backend.fresh();
    const heard: [string, string, readonly Float32Array[]][] = [];
    const listener = {
      changed: (id: string, list: readonly Float32Array[]) => void heard.push(['changed', id, list]),
      added: (id: string, list: readonly Float32Array[]) => void heard.push(['added', id, list]),
      only: () => undefined,
    };
    const at = await gallery.feed.readAll(MODEL, { add: () => undefined, bulk: () => null });
    await gallery.feed.follow(MODEL, at, listener);
    const [first, second, third] = [sample(1), sample(2), sample(3)];
    await gallery.enroll('w', [first], { replace: false });
    await gallery.enroll('w', [second, { ...third, modelId: 'other-model@1' }], { replace: false });
    await gallery.enroll('w', [third], { replace: true });
    await gallery.deletePerson('w');
    // The very arrays the writes were given: nothing was read back or opened again.
    expect(heard).toEqual([
      ['added', 'w', [first.embedding]],
      ['added', 'w', [second.embedding]],
      ['changed', 'w', [third.embedding]],
      ['changed', 'w', []],
    ]);
    expect(heard[0]![2][0]).toBe(first.embedding);
    expect(heard[2]![2][0]).toBe(third.embedding);
    expect(gallery.feed.position).toMatchObject({ seq: expect.any(Number) as number });
  });

  it.skipIf(skip)('a refusal from the screen stores nothing', async () => {
    const s = await backend.fresh();
    await s.gallery.enroll('a', [sample(1)], { replace: false });
    const again = await s.gallery.enroll('b', [sample(1)], { replace: false, screen: screenFor(s, 'b', embedding(1)) });
    expect(again).toEqual({ stored: false, rejection: 'DUPLICATED_TEMPLATE:a' });
    const other = await s.gallery.enroll('a', [sample(2)], { replace: false, screen: screenFor(s, 'a', embedding(2)) });
    expect(other).toEqual({ stored: false, rejection: 'DUPLICATED_SUBJECT_ID' });
    expect(await s.gallery.getPerson('b')).toBeNull();
    expect(await s.gallery.listSamples('a')).toHaveLength(1);
  });

  it.skipIf(skip)('the same face or the same id enrolled at the same moment on two stations: exactly one succeeds', async () => {
    const a = await backend.fresh();
    const b = backend.another ? await backend.another(a) : a;
    for (let round = 0; round < 5; round++) {
      const face = embedding(100 + round);
      const results = await Promise.all([
        a.gallery.enroll(`x${round}`, [{ ...sample(0), embedding: face }], {
          replace: false,
          screen: screenFor(a, `x${round}`, face),
        }),
        b.gallery.enroll(`y${round}`, [{ ...sample(0), embedding: face }], {
          replace: false,
          screen: screenFor(b, `y${round}`, face),
        }),
      ]);
      expect(results.filter((r) => r.stored)).toHaveLength(1);
      expect(results.filter((r) => !r.stored)).toEqual([
        { stored: false, rejection: expect.stringMatching(/^DUPLICATED_TEMPLATE:[xy]/) },
      ]);

      const other = embedding(200 + round);
      const sameId = await Promise.all([
        a.gallery.enroll(`z${round}`, [{ ...sample(0), embedding: face.map((v) => -v) }], {
          replace: false,
          screen: screenFor(
            a,
            `z${round}`,
            face.map((v) => -v),
          ),
        }),
        b.gallery.enroll(`z${round}`, [{ ...sample(0), embedding: other }], {
          replace: false,
          screen: screenFor(b, `z${round}`, other),
        }),
      ]);
      expect(sameId.map((r) => (r.stored ? 'stored' : r.rejection)).sort()).toEqual(['DUPLICATED_SUBJECT_ID', 'stored']);
      expect(await a.gallery.listSamples(`z${round}`)).toHaveLength(1);
    }
  });
});

describe.skipIf(!postgresBinDir())('shared gallery on PostgreSQL, several stations', () => {
  it('a change made on one station reaches the index of the others, also after a lost connection', async () => {
    const a = await postgresBackend.fresh();
    const b = await postgresBackend.another!(a);
    await a.gallery.enroll('p1', [sample(1)], { replace: false });
    await vi.waitFor(() => expect(b.index.search(embedding(1), 1)[0]?.idPersona).toBe('p1'));
    await b.gallery.deletePerson('p1');
    await vi.waitFor(() => expect(a.index.personCount).toBe(0));

    // Cut station A's feed connection; what B writes meanwhile arrives by catch-up on reconnection.
    const admin = new pg.Client({ connectionString: urls.get(a.gallery) });
    await admin.connect();
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'enrolla-feed' AND datname = current_database()",
    );
    await admin.end();
    await b.gallery.enroll('p2', [sample(2)], { replace: false });
    await vi.waitFor(() => expect(a.index.search(embedding(2), 1)[0]?.idPersona).toBe('p2'), { timeout: 10_000 });
    await vi.waitFor(() => expect(b.index.search(embedding(2), 1)[0]?.idPersona).toBe('p2'), { timeout: 10_000 });
  });

  it('a station cannot open a gallery whose database does not answer, and says which', async () => {
    const closed = 'postgres://postgres@127.0.0.1:1/enrolla';
    const failure = await openPostgresGallery({ url: closed, dataKey: key, logger, station: 'c' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).message).toMatch(
      /^La base de datos de la galería \(PostgreSQL 127\.0\.0\.1:1\/enrolla\) no responde.*no puede arrancar sin ella\.$/,
    );
  });

  it('keeps samples sealed in the database, and refuses a station with another key', async () => {
    const a = await postgresBackend.fresh();
    const url = urls.get(a.gallery)!;
    await a.gallery.enroll('secreta', [sample(3)], { replace: false });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ embedding: Buffer }>('SELECT embedding FROM face_samples');
    await admin.end();
    expect(rows[0]!.embedding.includes(Buffer.from(embedding(3).buffer))).toBe(false);
    const wrong = openPostgresGallery({ url, dataKey: randomBytes(32), logger, station: 'c' });
    await expect(wrong).rejects.toThrow(/clave de datos de esta estación no es la de la galería/);
  });

  it('says the database is unreachable, keeps searching its index, and catches up when it is back', async () => {
    const a = await postgresBackend.fresh();
    await a.gallery.enroll('p1', [sample(1)], { replace: false });
    await postgres.cluster.pause();
    try {
      const failure = await a.gallery.enroll('p2', [sample(2)], { replace: false }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as StoreError).kind).toBe('unavailable');
      expect((failure as StoreError).message).toMatch(
        /base de datos de la galería \(PostgreSQL 127\.0\.0\.1:\d+\/enrolla_test_\w+\) no responde/,
      );
      await expect(a.gallery.listSamples('p1')).rejects.toThrow(/no responde/);
      expect(a.index.search(embedding(1), 1)[0]?.idPersona).toBe('p1');
    } finally {
      await postgres.cluster.resume();
    }
    const b = await postgresBackend.another!(a);
    await b.gallery.enroll('p3', [sample(3)], { replace: false });
    await vi.waitFor(() => expect(a.index.search(embedding(3), 1)[0]?.idPersona).toBe('p3'), { timeout: 15_000 });
    expect(await a.gallery.enroll('p2', [sample(2)], { replace: false })).toMatchObject({ stored: true });
  });
});
