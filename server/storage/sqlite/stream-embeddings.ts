import { Worker } from 'node:worker_threads';
import { type BatchSink, type StreamVisitor, workerScript } from '../../threads/index.js';
import { StoreError, type UnreadableSample, unreadableSampleMessage } from '../store-error.js';
import { BLOCK_IDS } from './embedding-blocks.js';
import type { UnsealReady, UnsealRequest, UnsealResponse, UnsealWorkerData } from './worker/unseal-worker.js';

/**
 * Samples (or, reading by ranges, sample ids) per batch: each opened at once (open-all.ts). A
 * range is a sealed block's (embedding-blocks.ts), which the workers open instead when it is there.
 */
export const BATCH = BLOCK_IDS;

export interface SealedEmbeddingRow {
  id: number;
  id_persona: string;
  embedding: Uint8Array;
}

/** Where the workers read the samples themselves: the database file, the model, the last sample id. */
export interface SampleRanges {
  file: string;
  modelId: string;
  maxId: number;
  /** Only each embedding's first values are needed: a sealed block holding at least these will do. */
  leading?: number;
}

/**
 * A small young generation (4 MB semi-spaces, as the face workers'): each batch's row buffers and
 * opened values die young, and the sooner a scavenge frees them the sooner their memory is reused
 * instead of fresh pages, whose faults cost more than reading the rows (docs/search-index.md).
 */
const UNSEAL_WORKER_HEAP = { maxYoungGenerationSizeMb: 12 };

/** One thread that reads and opens batches, answering in the order it is asked. */
class Unsealer {
  private readonly worker: Worker;
  private readonly waiting: ((reply: UnsealResponse) => void)[] = [];
  private gone: string | null = null;
  /** Whether it opened the database file (false: it only opens what it is sent). */
  readonly reads: Promise<boolean>;

  constructor(key: Buffer, ranges: SampleRanges | undefined, sink: BatchSink | null, skipUnreadable: boolean) {
    const workerData: UnsealWorkerData = {
      key: new Uint8Array(key),
      ...(skipUnreadable ? { skipUnreadable } : {}),
      ...(ranges
        ? { source: { file: ranges.file, modelId: ranges.modelId, ...(ranges.leading ? { leading: ranges.leading } : {}) } }
        : {}),
      ...(sink ? { sink } : {}),
    };
    this.worker = new Worker(workerScript(import.meta.url, 'unseal-worker'), { workerData, resourceLimits: UNSEAL_WORKER_HEAP });
    let ready: (reads: boolean) => void;
    this.reads = new Promise((resolve) => (ready = resolve));
    this.worker.on('message', (reply: UnsealResponse | UnsealReady) => {
      if ('ready' in reply) ready(reply.reads);
      else this.waiting.shift()?.(reply);
    });
    this.worker.on('error', (error) => this.failAll(error.message));
    this.worker.on('exit', () => {
      ready(false);
      this.failAll('el hilo que abre las muestras terminó');
    });
  }

  private failAll(message: string): void {
    this.gone ??= message;
    for (const resolve of this.waiting.splice(0)) resolve({ ok: false, idPersona: '', error: message });
  }

  ask(request: UnsealRequest, transfer: ArrayBuffer[] = []): Promise<UnsealResponse> {
    return new Promise<UnsealResponse>((resolve) => {
      if (this.gone) return resolve({ ok: false, idPersona: '', error: this.gone });
      this.waiting.push(resolve);
      this.worker.postMessage(request, transfer);
    });
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

/**
 * The sealed embeddings of a model, opened on `threads` worker threads, batches dealt in turn, two
 * in flight per thread (so that no thread waits for another's turn): while they open, the caller's
 * `visit` codes the oldest batch, in id order. With `ranges` the workers read the samples too,
 * each from its own read-only connection, by ranges of ids: the caller's thread is left only the
 * coding, and the two cores share reading and opening, which cost about as much as the coding.
 * Without (an in-memory database, or a file a worker cannot open) the caller reads page by page (`page(after, limit)`: the rows with id above
 * `after`, in id order) and sends the bytes. No statement stays open across the awaits. With
 * `sink`, each worker hands every batch it opened to the caller's sink (IndexFill.bulk),
 * and `visit` gets what the sink made of it instead of the floats.
 */
export async function streamUnsealed(
  key: Buffer,
  page: (after: number, limit: number) => SealedEmbeddingRow[],
  visit: StreamVisitor,
  options: StreamOptions = {},
): Promise<void> {
  await streamBatches(
    key,
    options,
    async (readers, dealt) => {
      const ranges = options.ranges;
      if (ranges && readers) {
        for (let lo = 0, turn = 0; lo < ranges.maxId; lo += BATCH, turn++) {
          await dealt(turn, { kind: 'read', lo, hi: lo + BATCH });
        }
        return;
      }
      for (let after = 0, turn = 0; ; turn++) {
        const rows = page(after, BATCH);
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!.id;
        const ends = new Int32Array(rows.length);
        let total = 0;
        rows.forEach((r, i) => (ends[i] = total += r.embedding.byteLength));
        const bytes = new Uint8Array(total);
        rows.forEach((r, i) => bytes.set(r.embedding, i ? ends[i - 1]! : 0));
        const ids = rows.map((r) => r.id_persona);
        await dealt(turn, { kind: 'open', ids, bytes, ends }, [bytes.buffer, ends.buffer]);
      }
    },
    visit,
  );
}

interface StreamOptions {
  threads?: number;
  ranges?: SampleRanges;
  sink?: BatchSink | null;
  /** Where a sample that does not open is reported, and left out; without it the stream fails on it. */
  onUnreadable?: (sample: UnreadableSample) => void;
}

/**
 * The samples of `persons` (each of them once, with none for a person without samples), read
 * and opened on the workers `BATCH` persons at a time while the caller's `visit` takes the batch
 * before: a crash's catch-up. False, having read nothing, when the workers cannot read the file.
 */
export async function streamPersonsUnsealed(
  key: Buffer,
  source: Pick<SampleRanges, 'file' | 'modelId'>,
  persons: readonly string[],
  visit: (idPersona: string, embeddings: Float32Array[]) => void,
  onUnreadable: ((sample: UnreadableSample) => void) | null = null,
): Promise<boolean> {
  let read = false;
  const chunks: string[][] = [];
  // One answer a request, in order: the oldest chunk is the one answered.
  const answered: StreamVisitor = (ids, embeddings) => {
    const byPerson = new Map<string, Float32Array[]>();
    ids.forEach((id, i) => {
      const list = byPerson.get(id);
      if (list) list.push(embeddings[i]!);
      else byPerson.set(id, [embeddings[i]!]);
    });
    for (const id of chunks.shift()!) visit(id, byPerson.get(id) ?? []);
  };
  // maxId bounds range reads only: these read by person.
  await streamBatches(
    key,
    { ranges: { ...source, maxId: 0 }, ...(onUnreadable ? { onUnreadable } : {}) },
    async (readers, dealt) => {
      if (!readers) return;
      read = true;
      for (let at = 0, turn = 0; at < persons.length; at += BATCH, turn++) {
        const chunk = persons.slice(at, at + BATCH);
        chunks.push(chunk);
        await dealt(turn, { kind: 'persons', ids: chunk });
      }
    },
    answered,
  );
  return read;
}

/**
 * Starts the unseal workers and runs `deal`, which sends requests through `dealt` (to the workers
 * in turn, two in flight per worker; `readers`: whether every worker reads the file itself);
 * each answer goes to `visit` in the order asked.
 */
async function streamBatches(
  key: Buffer,
  options: StreamOptions,
  deal: (
    readers: boolean,
    dealt: (turn: number, request: UnsealRequest, transfer?: ArrayBuffer[]) => Promise<void>,
  ) => Promise<void>,
  visit: StreamVisitor,
): Promise<void> {
  const sink = options.sink ?? null;
  const onUnreadable = options.onUnreadable ?? null;
  const unsealers = Array.from(
    { length: Math.max(1, options.threads ?? 2) },
    () => new Unsealer(key, options.ranges, sink, onUnreadable !== null),
  );
  const inFlight: Promise<UnsealResponse>[] = [];
  const codeOldest = async () => {
    const answer = await inFlight.shift()!;
    if (!answer.ok) throw new StoreError(unreadableSampleMessage(answer.idPersona, answer.error), 'unavailable');
    for (const sample of answer.unreadable ?? []) onUnreadable!(sample);
    if ('coded' in answer) return visit(answer.ids, [], answer.coded);
    const { ids, floats, ends } = answer;
    visit(
      ids,
      Array.from(ends, (end, i) => floats.subarray(i ? ends[i - 1]! : 0, end)),
    );
  };
  const dealt = async (turn: number, request: UnsealRequest, transfer?: ArrayBuffer[]) => {
    inFlight.push(unsealers[turn % unsealers.length]!.ask(request, transfer));
    if (inFlight.length > 2 * unsealers.length) await codeOldest();
  };
  try {
    const readers = options.ranges !== undefined && (await Promise.all(unsealers.map((u) => u.reads))).every(Boolean);
    await deal(readers, dealt);
    while (inFlight.length > 0) await codeOldest();
  } finally {
    await Promise.all(unsealers.map((u) => u.stop()));
  }
}
