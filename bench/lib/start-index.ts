// One start of the station's search index in a fresh process, as a station starts: opens the SQLite
// store in DIR, times openGalleryIndex, optionally times enrollments until searchable, times the
// close (the snapshot save) and prints one JSON line. Run by `bench:identify --startup`.
//   node dist/bench/lib/start-index.js DIR [--enroll-from I --enroll N] [--caller-codes]
//   env BENCH_STORE_KEY (hex, the store's data key), BENCH_SEAL_KEY (hex, the index's; absent: clear)
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { FACE_MODEL_ID, IDENTIFICATION_DIM } from '../../server/engines/index.js';
import { openGalleryIndex } from '../../server/gallery-index/index.js';
import { openSqliteStation } from '../../server/storage/index.js';
import { SyntheticFusedSamples, syntheticPersonId } from './synthetic-embeddings.js';

export interface StartResult {
  ms: number;
  /** CPU of every thread of the process over the wall time of the start. */
  cores: number;
  source: string;
  caughtUp: number;
  /**
   * From each enrollment's durable commit to a search that finds the person: the first made at
   * once after the index opened, the others once the work a start leaves to the event loop is done
   * (as before a station's first request, which comes after its engines are ready).
   */
  delaysMs: number[];
  closeMs: number;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'enroll-from': { type: 'string', default: '0' },
      enroll: { type: 'string', default: '0' },
      // A rebuild coded on the caller's thread alone (openGalleryIndex's codeOnStoreThreads: false).
      'caller-codes': { type: 'boolean', default: false },
    },
  });
  const dir = positionals[0]!;
  const store = openSqliteStation(dir, Buffer.from(process.env.BENCH_STORE_KEY!, 'hex'));
  // The moment the index hears each enrollment: right after its durable commit.
  let heard = 0;
  const feed = store.gallery.feed;
  const follow = feed.follow.bind(feed);
  feed.follow = (modelId, from, listener) =>
    follow(modelId, from, {
      ...listener,
      changed: (id, embeddings) => ((heard = performance.now()), listener.changed(id, embeddings)),
    });
  const sealKey = process.env.BENCH_SEAL_KEY ? Buffer.from(process.env.BENCH_SEAL_KEY, 'hex') : undefined;
  const t = performance.now();
  const cpu = process.cpuUsage();
  // As the station opens it: the stored 320-d vectors, their leading MobileFaceNet part indexed.
  const opened = await openGalleryIndex(store.gallery, dir, {
    dim: IDENTIFICATION_DIM,
    leadingPart: true,
    modelId: FACE_MODEL_ID,
    ...(sealKey ? { sealKey } : {}),
    ...(values['caller-codes'] ? { codeOnStoreThreads: false } : {}),
  });
  const ms = performance.now() - t;
  const { user, system } = process.cpuUsage(cpu);
  const gen = new SyntheticFusedSamples();
  const delaysMs: number[] = [];
  const from = Number(values['enroll-from']);
  for (let i = from; i < from + Number(values.enroll); i++) {
    if (i === from + 1) await opened.settled();
    const embedding = gen.sample(i, 0);
    await store.gallery.enroll(syntheticPersonId(i), [{ modelId: FACE_MODEL_ID, embedding, quality: 80, thumbnail: null }], {
      replace: true,
    });
    const hit = opened.index.search(gen.sample(i, -1), 1)[0];
    delaysMs.push(performance.now() - heard);
    if (hit?.idPersona !== syntheticPersonId(i))
      console.error(`warning: ${syntheticPersonId(i)} not found right after enrolling`);
  }
  const closing = performance.now();
  await opened.close();
  const closeMs = performance.now() - closing;
  store.close();
  const result: StartResult = {
    ms,
    cores: (user + system) / 1000 / ms,
    source: opened.source,
    caughtUp: opened.caughtUp,
    delaysMs,
    closeMs,
  };
  console.log(JSON.stringify(result));
}

await main();
