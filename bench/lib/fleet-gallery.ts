// The shared gallery on PostgreSQL (`npm run bench:identify -- --database-url postgres://... [--gallery N]`):
// bulk load of N synthetic persons, a station's start-up from the database (connect, read, unseal,
// index), the delay until a person enrolled on station A is searchable on station B, the
// fleet's enrollment rate with every write behind one lock, and a station restarting from its own
// index snapshot (following the changes made while it was down) against one reading the gallery.
// Creates and finally drops a database `enrolla_bench_<pid>` on that server (the URL's user needs
// CREATEDB). Writes bench/results/fleet-gallery-N.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { keepInStep, openGalleryIndex } from '../../server/gallery-index/index.js';
import { type Gallery, oneKey, openPostgresGallery, SampleCodec, type Screen } from '../../server/storage/index.js';
import { cosine } from '../../server/matching/index.js';
import { createLogger } from '../../server/log/index.js';
import { QuantizedEmbeddingIndex, searchIndexKey } from '../../server/search/index.js';
import { packageRoot } from '../../server/version.js';
import { percentile, printTable } from './metrics.js';
import { SyntheticGallery } from './synthetic-embeddings.js';

const MODEL = 'bench@1';
const BATCH = 5000;

export async function fleetGalleryBench(options: { url: string; persons: number; dim: number; threads: number }): Promise<void> {
  const { persons: N, dim, threads } = options;
  const log = (msg: string) => console.log(`[${(performance.now() / 1000).toFixed(1)} s] ${msg}`);
  const admin = new pg.Client({ connectionString: options.url });
  await admin.connect();
  const dbName = `enrolla_bench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(options.url);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const key = randomBytes(32);
  const logger = createLogger('silent');
  const gen = new SyntheticGallery({ dim });
  const id = (i: number) => `P${String(i).padStart(8, '0')}`;
  const open: Gallery[] = [];
  const indexes: QuantizedEmbeddingIndex[] = [];
  try {
    // 1. Bulk load, sealed as the station seals: multi-row INSERT from arrays, one transaction per batch.
    const seeder = await openPostgresGallery({ url, dataKey: key, logger, station: 'bench' });
    open.push(seeder);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    let t = performance.now();
    const vec = new Float32Array(dim);
    const codec = new SampleCodec(oneKey(key));
    for (let start = 0; start < N; start += BATCH) {
      const n = Math.min(BATCH, N - start);
      const ids: string[] = [];
      const blobs: Buffer[] = [];
      for (let p = 0; p < n; p++) {
        const i = start + p;
        gen.sample(i, 0, gen.person(i), vec);
        ids.push(id(i));
        blobs.push(codec.seal(id(i), { modelId: MODEL, embedding: vec, quality: 80, thumbnail: null }).embedding);
      }
      await db.query('BEGIN');
      await db.query('INSERT INTO persons (id_persona, created_at, updated_at) SELECT unnest($1::text[]), now(), now()', [ids]);
      await db.query(
        `INSERT INTO face_samples (id_persona, model_id, embedding, quality, created_at)
         SELECT unnest($1::text[]), $2, unnest($3::bytea[]), 80, now()`,
        [ids, MODEL, blobs],
      );
      await db.query('COMMIT');
    }
    await db.query('ANALYZE');
    const insertMs = performance.now() - t;
    const { rows } = await db.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    const dbMb = Math.round(Number(rows[0]!.bytes) / 2 ** 20);
    await db.end();
    log(`inserted ${N} persons in ${Math.round(insertMs)} ms (${Math.round(N / (insertMs / 1000))}/s); database ${dbMb} MB`);

    // 2. A station starting: open (connect, migrate check, key check) and fill its index.
    const rssBefore = process.memoryUsage().rss;
    t = performance.now();
    const stationA = await openPostgresGallery({ url, dataKey: key, logger, station: 'a' });
    open.push(stationA);
    const indexA = await QuantizedEmbeddingIndex.create(dim, { threads, capacity: N + 10_000 });
    indexes.push(indexA);
    await keepInStep(stationA, indexA, MODEL);
    const startupMs = performance.now() - t;
    const rssMb = Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20);
    if (indexA.personCount !== N) throw new Error(`index holds ${indexA.personCount} persons, expected ${N}`);
    log(
      `station start-up from PostgreSQL: ${Math.round(startupMs)} ms for ${N} persons (${Math.round(N / (startupMs / 1000))}/s), +${rssMb} MB`,
    );

    // 3. Propagation: enroll on A (with the duplicate screen production runs), wait until B has it.
    const applied = new Map<string, number>();
    const stationB = await openPostgresGallery({ url, dataKey: key, logger, station: 'b' });
    open.push(stationB);
    const indexB = await QuantizedEmbeddingIndex.create(dim, { threads, capacity: N + 10_000 });
    indexes.push(indexB);
    await keepInStep(stationB, indexB, MODEL, (i) => {
      if (!applied.has(i)) applied.set(i, performance.now());
    });
    const ROUNDS = 200;
    const enrollMs: number[] = [];
    const delayMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const i = N + r;
      const embedding = gen.sample(i, 0, gen.person(i));
      const t0 = performance.now();
      const result = await stationA.enroll(id(i), [{ modelId: MODEL, embedding, quality: 80, thumbnail: null }], {
        replace: false,
        screen: screenFor(indexA, embedding, id(i)),
      });
      if (!result.stored) throw new Error(`not stored: ${id(i)}`);
      enrollMs.push(performance.now() - t0);
      while (!applied.has(id(i))) await new Promise((resolve) => setImmediate(resolve));
      if (indexB.search(embedding, 1)[0]?.idPersona !== id(i)) throw new Error(`${id(i)} not found on B`);
      delayMs.push(applied.get(id(i))! - t0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    log(
      `propagation A -> B over ${ROUNDS} enrollments: p50 ${percentile(delayMs, 50).toFixed(1)} ms, p95 ${percentile(delayMs, 95).toFixed(1)} ms`,
    );

    // 4. Two stations enrolling flat out at once: the write lock serializes the fleet.
    const PER_STATION = 500;
    t = performance.now();
    await Promise.all(
      [stationA, stationB].map(async (g, s) => {
        const index = s === 0 ? indexA : indexB;
        for (let k = 0; k < PER_STATION; k++) {
          const i = N + ROUNDS + s * PER_STATION + k;
          const embedding = gen.sample(i, 0, gen.person(i));
          await g.enroll(id(i), [{ modelId: MODEL, embedding, quality: 80, thumbnail: null }], {
            replace: false,
            screen: screenFor(index, embedding, id(i)),
          });
        }
      }),
    );
    const fleetPerS = (2 * PER_STATION) / ((performance.now() - t) / 1000);
    log(`two stations enrolling at once: ${Math.round(fleetPerS)} enrollments/s for the fleet`);

    // 5. Station C as the station runs it (openGalleryIndex, sealed snapshot): a first start reads the
    // gallery; stopped, it saves its snapshot; CHANGED persons are enrolled meanwhile; restarted, it
    // loads the snapshot and follows the changes made since.
    const CHANGED = 1000;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-bench-fleet-'));
    const stationC = async () => {
      const t0 = performance.now();
      const gallery = await openPostgresGallery({ url, dataKey: key, logger, station: 'c' });
      const fleet = await openGalleryIndex(gallery, dataDir, { dim, modelId: MODEL, sealKey: searchIndexKey(key) });
      // As the station stops: the index (its snapshot saved once the feed has stopped), then the gallery.
      const close = async () => {
        await fleet.close();
        await gallery.close();
      };
      return { fleet, close, ms: performance.now() - t0 };
    };
    let restart: { fromGalleryMs: number; saveMs: number; fromSnapshotMs: number; source: string };
    try {
      const first = await stationC();
      t = performance.now();
      await first.close();
      const saveMs = performance.now() - t;
      const base = N + ROUNDS + 2 * PER_STATION;
      for (let k = 0; k < CHANGED; k++) {
        const i = base + k;
        await stationA.enroll(
          id(i),
          [{ modelId: MODEL, embedding: gen.sample(i, 0, gen.person(i)), quality: 80, thumbnail: null }],
          { replace: false },
        );
      }
      const second = await stationC();
      const expected = base + CHANGED;
      const held = second.fleet.index.personCount;
      const source = second.fleet.source;
      await second.close();
      if (held !== expected) throw new Error(`restarted index holds ${held} persons, expected ${expected}`);
      restart = { fromGalleryMs: first.ms, saveMs, fromSnapshotMs: second.ms, source };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    log(
      `station C: first start from the gallery ${Math.round(restart.fromGalleryMs)} ms; snapshot saved at stop in ${Math.round(restart.saveMs)} ms; restart from the ${restart.source} with ${CHANGED} persons enrolled meanwhile ${Math.round(restart.fromSnapshotMs)} ms`,
    );

    const result = {
      gallery: N,
      dim,
      insert_ms: Math.round(insertMs),
      insert_per_s: Math.round(N / (insertMs / 1000)),
      database_mb: dbMb,
      startup_ms: Math.round(startupMs),
      startup_persons_per_s: Math.round(N / (startupMs / 1000)),
      startup_rss_mb: rssMb,
      enroll_p50_ms: round(percentile(enrollMs, 50)),
      enroll_p95_ms: round(percentile(enrollMs, 95)),
      propagation_p50_ms: round(percentile(delayMs, 50)),
      propagation_p95_ms: round(percentile(delayMs, 95)),
      propagation_max_ms: round(Math.max(...delayMs)),
      propagation_rounds: ROUNDS,
      fleet_enroll_per_s: Math.round(fleetPerS),
      restart_from_gallery_ms: Math.round(restart.fromGalleryMs),
      restart_snapshot_save_ms: Math.round(restart.saveMs),
      restart_from_snapshot_ms: Math.round(restart.fromSnapshotMs),
      restart_source: restart.source,
      restart_changed_meanwhile: CHANGED,
      threads,
      node: process.version,
      measured_at: new Date().toISOString(),
    };
    printTable([
      {
        gallery: N,
        insert_per_s: result.insert_per_s,
        startup_ms: result.startup_ms,
        'enroll p50': result.enroll_p50_ms,
        'propag. p50': result.propagation_p50_ms,
        'propag. p95': result.propagation_p95_ms,
        'fleet enroll/s': result.fleet_enroll_per_s,
        'restart: gallery ms': result.restart_from_gallery_ms,
        'restart: snapshot ms': result.restart_from_snapshot_ms,
      },
    ]);
    const dir = path.join(packageRoot(), 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const out = path.join(dir, `fleet-gallery-${N}.json`);
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(`-> ${path.relative(packageRoot(), out)}`);
  } finally {
    for (const g of open) await g.close();
    for (const index of indexes) await index.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

/** Production's duplicate screen, reduced to its search: the whole index, or the persons changed since. */
const screenFor =
  (index: QuantizedEmbeddingIndex, probe: Float32Array, self: string): Screen<string> =>
  ({ candidates }) => {
    let best = 0;
    if (candidates === 'index') best = index.search(probe, 1, self)[0]?.score ?? 0;
    else
      for (const [other, list] of candidates) if (other !== self) for (const e of list) best = Math.max(best, cosine(e, probe));
    return best > 0.99 ? 'duplicate' : null;
  };

const round = (x: number) => Math.round(x * 100) / 100;
