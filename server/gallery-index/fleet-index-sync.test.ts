import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { postgresBinDir, postgresForFile } from '../../e2e/helpers/postgres.js';
import { freshSharedGallery } from '../../e2e/helpers/shared-gallery.js';
import { createLogger } from '../log/logger.js';
import { IndexIntegrityError, searchIndexKey } from '../search/index.js';
import { openPostgresGallery, UNREADABLE_SAMPLE_LOG } from '../storage/index.js';
import { pruneChanges } from '../storage/postgres/prune-changes.js';
import { openGalleryIndex } from './index-sync.js';

// A fleet station restarted from its own index snapshot on a real PostgreSQL: it follows what
// changed while it was down, and fills its index from the gallery whenever the snapshot cannot be
// followed (another gallery, another key, another history, pruned changes).
const MODEL = 'test-model@1';
const DIM = 8;
const key = randomBytes(32);
const logger = createLogger('silent');
const face = (i: number) => Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * 7.1 + d * 1.3));

const postgres = postgresForFile();

async function setup() {
  const { url, writer, sql, enroll: enrollFace } = await freshSharedGallery(postgres, { dataKey: key, model: MODEL, dim: DIM });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-fleet-index-'));
  postgres.defer(async () => rmSync(dataDir, { recursive: true, force: true }));
  const enroll = (id: string, i: number) => enrollFace(id, face(i));
  /** One start of the station: its gallery and its index, from its data directory. */
  const station = async (options: { url?: string; sealKey?: Buffer; logLines?: string[] } = {}) => {
    const log = options.logLines ? createLogger('warn', { write: (l: string) => void options.logLines!.push(l) }) : logger;
    const gallery = await openPostgresGallery({
      url: options.url ?? url,
      dataKey: key,
      logger: log,
      station: 's',
    });
    const opened = await openGalleryIndex(gallery, dataDir, {
      dim: DIM,
      modelId: MODEL,
      sealKey: options.sealKey ?? searchIndexKey(key),
    });
    // As the station stops: the index (its snapshot saved once the feed has stopped), then the gallery.
    const fleet = Object.assign({}, opened, {
      close: async () => {
        await opened.close();
        await gallery.close();
      },
    });
    const ids = () => [...fleet.index.personIds()].sort();
    return { gallery, fleet, ids };
  };
  return { url, dataDir, writer, sql, enroll, station };
}

describe.skipIf(!postgresBinDir())('fleet station index snapshot (postgres)', () => {
  it('restarts from its snapshot and follows what changed while it was down', async () => {
    const f = await setup();
    await f.enroll('p1', 1);
    await f.enroll('p2', 2);
    const first = await f.station();
    expect(first.fleet.source).toBe('gallery');
    expect(first.ids()).toEqual(['p1', 'p2']);
    await first.fleet.close();

    // While it is down: one person added, one deleted, one re-enrolled with another face.
    await f.enroll('p3', 3);
    await f.writer.deletePerson('p1');
    await f.enroll('p2', 9);

    const second = await f.station();
    postgres.defer(() => second.fleet.close());
    expect(second.fleet.source).toBe('snapshot+changes');
    expect(second.fleet.caughtUp).toBe(3);
    expect(second.ids()).toEqual(['p2', 'p3']);
    expect(second.fleet.index.search(face(9), 1)[0]).toMatchObject({ idPersona: 'p2' });
    expect(second.fleet.index.search(face(9), 1)[0]!.score).toBeCloseTo(1, 5);
    // And it follows from there.
    await f.enroll('p4', 4);
    await f.writer.enroll('p5', [{ modelId: MODEL, embedding: face(5), quality: 80, thumbnail: null }], { replace: false });
    await vi.waitFor(() => expect(second.ids()).toEqual(['p2', 'p3', 'p4', 'p5']));
  });

  it('fills the index from the gallery when the snapshot is of another gallery or sealed with another key', async () => {
    const f = await setup();
    await f.enroll('a1', 1);
    const first = await f.station();
    await first.fleet.close();

    const otherUrl = await postgres.cluster.createDatabase();
    const other = await f.station({ url: otherUrl });
    expect(other.fleet.source).toBe('gallery');
    expect(other.ids()).toEqual([]);
    await other.fleet.close(); // now the snapshot is the other gallery's

    const back = await f.station();
    expect(back.fleet.source).toBe('gallery');
    expect(back.ids()).toEqual(['a1']);
    await back.fleet.close();

    const rekeyed = await f.station({ sealKey: randomBytes(32) });
    postgres.defer(() => rekeyed.fleet.close());
    expect(rekeyed.fleet.source).toBe('gallery');
    expect(rekeyed.ids()).toEqual(['a1']);
  });

  it('fills it again when its position is not found as it was: another history, or pruned changes', async () => {
    const f = await setup();
    await f.enroll('h1', 1);
    await f.enroll('h2', 2);
    const first = await f.station();
    await f.enroll('ghost', 5);
    await vi.waitFor(() => expect(first.ids()).toContain('ghost'));
    await first.fleet.close(); // its position: the enrollment of 'ghost'
    // The database restored from a backup taken before 'ghost', and written to since: the number
    // of the snapshot's position now belongs to another change.
    await f.sql.query("DELETE FROM persons WHERE id_persona = 'ghost'");
    const { rows } = await f.sql.query<{ seq: string }>("DELETE FROM gallery_changes WHERE id_persona = 'ghost' RETURNING seq");
    await f.sql.query("SELECT setval(pg_get_serial_sequence('gallery_changes', 'seq'), $1)", [Number(rows[0]!.seq) - 1]);
    await f.enroll('h3', 3);
    const restored = await f.station();
    expect(restored.fleet.source).toBe('gallery');
    expect(restored.ids()).toEqual(['h1', 'h2', 'h3']);
    await restored.fleet.close();

    // Down longer than the retention: the changes after its position were pruned.
    await f.writer.deletePerson('h2');
    await f.enroll('h4', 4);
    await pruneChanges(f.sql, 0);
    const late = await f.station();
    postgres.defer(() => late.fleet.close());
    expect(late.fleet.source).toBe('gallery');
    expect(late.ids()).toEqual(['h1', 'h3', 'h4']);
  });

  it('replaces an index whose stored rows fail their check with one filled from the gallery', async () => {
    const f = await setup();
    for (let i = 0; i < 40; i++) await f.enroll(`d${i}`, i);
    const first = await f.station();
    await first.fleet.close();
    // The disk changed under the station: the end of the snapshot, where its float rows are.
    const file = path.join(f.dataDir, 'search-index', `fleet-${MODEL.replace(/[^A-Za-z0-9._-]/g, '_')}.snapshot`);
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(DIM * 4 * 20), 0, DIM * 4 * 20, size - DIM * 4 * 20);
    closeSync(fd);

    const second = await f.station();
    expect(second.fleet.source).toBe('snapshot'); // the float rows are checked as they are read
    let failure: unknown = null;
    for (let i = 39; i >= 0 && failure === null; i--) {
      try {
        second.fleet.index.search(face(i), 10);
      } catch (error) {
        failure = error;
      }
    }
    expect(failure).toBeInstanceOf(IndexIntegrityError);
    await second.fleet.reloaded();
    for (let i = 0; i < 40; i++) {
      expect(second.fleet.index.search(face(i), 1)[0]).toMatchObject({ idPersona: `d${i}` });
      expect(second.fleet.index.search(face(i), 1)[0]!.score).toBeCloseTo(1, 5);
    }
    // It follows the gallery into the fresh index, and its snapshot at the next stop is sound.
    await f.enroll('after', 77);
    await vi.waitFor(() => expect(second.ids()).toContain('after'));
    await second.fleet.close();
    const third = await f.station();
    postgres.defer(() => third.fleet.close());
    expect(third.fleet.source).toBe('snapshot');
    for (let i = 0; i < 40; i++) expect(third.fleet.index.search(face(i), 1)[0]).toMatchObject({ idPersona: `d${i}` });
  });

  it('fills the index without a sample that does not open, and names it in the log', async () => {
    const f = await setup();
    for (let i = 1; i <= 3; i++) await f.enroll(`u${i}`, i);
    // A bit of u2's sealed embedding flips in the database.
    await f.sql.query(
      "UPDATE face_samples SET embedding = set_byte(embedding, 20, get_byte(embedding, 20) # 1) WHERE id_persona = 'u2'",
    );
    const logLines: string[] = [];
    const s = await f.station({ logLines });
    postgres.defer(() => s.fleet.close());
    expect(s.fleet.source).toBe('gallery');
    expect(s.ids()).toEqual(['u1', 'u3']);
    const reported = logLines.map((l) => JSON.parse(l) as { idPersona?: string; msg: string }).filter((l) => l.idPersona);
    expect(reported).toEqual([expect.objectContaining({ idPersona: 'u2', msg: UNREADABLE_SAMPLE_LOG })]);
  });
});
