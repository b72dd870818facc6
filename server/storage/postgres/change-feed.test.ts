import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { postgresBinDir, postgresForFile } from '../../../e2e/helpers/postgres.js';
import { freshSharedGallery } from '../../../e2e/helpers/shared-gallery.js';
import { indexListener, keepInStep } from '../../gallery-index/index-sync.js';
import { createLogger } from '../../log/logger.js';
import { EmbeddingIndex } from '../../search/index.js';
import { openPostgresGallery } from './postgres-gallery.js';
import { pruneChanges } from './prune-changes.js';

// The change feed's pruning on a real PostgreSQL: old rows go, and a station that had not applied
// them notices and reloads instead of keeping a stale index.
const MODEL = 'test-model@1';
const DIM = 4;
const key = randomBytes(32);
const logger = createLogger('silent');
const unit = (i: number) => Float32Array.from({ length: DIM }, (_, d) => (d === i % DIM ? 1 : 0.1 * (i + 1)));

const postgres = postgresForFile();

async function fleet() {
  const { url, writer, sql, enroll: enrollFace } = await freshSharedGallery(postgres, { dataKey: key, model: MODEL, dim: DIM });
  const enroll = (id: string, i: number) => enrollFace(id, unit(i));
  /** A follower: one station's gallery and index (its feed looks for changes when told to, or at a notification). */
  const follower = async () => {
    const index = new EmbeddingIndex(DIM);
    const gallery = await openPostgresGallery({
      url,
      dataKey: key,
      logger,
      station: 'f',
      pollMs: 3_600_000,
      pruneEveryMs: 3_600_000,
    });
    postgres.defer(() => gallery.close());
    await keepInStep(gallery, index, MODEL);
    return { index, feed: gallery.feed };
  };
  const rows = async () =>
    (await sql.query<{ seq: string }>('SELECT seq FROM gallery_changes ORDER BY seq')).rows.map((r) => Number(r.seq));
  return { writer, sql, enroll, follower, rows };
}

describe.skipIf(!postgresBinDir())('change feed pruning (postgres)', () => {
  it('deletes the changes past their retention but the newest, and raises the mark', async () => {
    const f = await fleet();
    await f.enroll('p1', 1);
    await f.enroll('p2', 2);
    await f.enroll('p3', 3);
    const seqs = await f.rows();
    expect(seqs).toHaveLength(3);

    expect(await pruneChanges(f.sql, 3_600_000)).toBeNull(); // nothing an hour old
    expect(await f.rows()).toEqual(seqs);

    expect(await pruneChanges(f.sql, 0)).toBe(seqs[1]);
    expect(await f.rows()).toEqual([seqs[2]]);
    const mark = await f.sql.query<{ through: string }>('SELECT through FROM gallery_changes_pruned');
    expect(Number(mark.rows[0]!.through)).toBe(seqs[1]);

    // A station starting now loads everything and follows the writes after it.
    const { index, feed } = await f.follower();
    expect([...index.personIds()].sort()).toEqual(['p1', 'p2', 'p3']);
    expect(feed.position?.seq).toBe(seqs[2]);
    await f.enroll('p4', 4);
    await feed.catchUp();
    expect(index.personCount).toBe(4);
  });

  it('a station whose position is under the mark reloads its index from the gallery', async () => {
    const f = await fleet();
    await f.enroll('kept', 1);
    await f.enroll('gone', 2);
    const away = (await f.rows()).at(-1)!;
    // While a station is away: one person deleted, one re-enrolled with another face, one new.
    await f.writer.deletePerson('gone');
    await f.enroll('kept', 5);
    await f.enroll('new', 6);
    // The station, as it was when it went away (started after the writes, so no notification of
    // them is pending, then put back to that index).
    const { index, feed } = await f.follower();
    index.set('kept', [unit(1)]);
    index.set('gone', [unit(2)]);
    index.remove('new');
    // The changes it missed are pruned before it comes back; only the newest is left.
    // A station's own pruning at its start may hold the pruning lock a moment: then ours skips.
    let mark: number | null = null;
    for (let attempt = 0; attempt < 40 && mark === null; attempt++) {
      mark = await pruneChanges(f.sql, 0);
      if (mark === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(mark).toBeGreaterThan(away);

    // It follows again from the position it went away at.
    await feed.follow(
      MODEL,
      { ...feed.position!, seq: away },
      indexListener(() => index),
    );
    expect([...index.personIds()].sort()).toEqual(['kept', 'new']);
    expect(index.search(unit(5), 1)[0]).toMatchObject({ idPersona: 'kept' });
    expect(index.search(unit(5), 1)[0]!.score).toBeCloseTo(1, 5);
    expect(feed.position?.seq).toBe((await f.rows()).at(-1));

    // And it follows again from there.
    await f.enroll('later', 3);
    await feed.catchUp();
    expect(index.personCount).toBe(3);
  });

  it('a station that applied every change before the pruning is left as it is', async () => {
    const f = await fleet();
    await f.enroll('a', 1);
    await f.enroll('b', 2);
    const { index, feed } = await f.follower();
    index.set('only-here', [unit(3)]); // a resync would remove it
    await pruneChanges(f.sql, 0);
    await f.enroll('c', 4);
    await feed.catchUp();
    expect([...index.personIds()].sort()).toEqual(['a', 'b', 'c', 'only-here']);
  });
});
