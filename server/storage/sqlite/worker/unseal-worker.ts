// A worker thread for the store's bulk read of embeddings (a start-up rebuild of the search index):
// it reads a range of samples from its own read-only connection to the database file, or takes
// the sealed bytes the caller read, and opens them, so that the caller's thread only codes them
// into the index meanwhile (docs/search-index.md).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { openAll, OpenAllScratch, open, SealError } from '../../../crypto/index.js';
import type { BatchSink, OpenedBatchSink } from '../../../threads/index.js';
import { sampleAad } from '../../sample-codec.js';
import { type UnreadableSample, unreadableSampleMessage } from '../../store-error.js';
import { BLOCK_IDS, openBlock } from '../embedding-blocks.js';

export interface UnsealWorkerData {
  key: Uint8Array;
  /**
   * The database file and the model whose samples `read` requests fetch; `leading`: only each
   * embedding's first values are needed (a sealed block of at least that many will do).
   */
  source?: { file: string; modelId: string; leading?: number };
  /** The caller's work on each opened batch (IndexFill.bulk). */
  sink?: BatchSink;
  /** Leave out a sample that does not open, and name it in the answer, instead of failing the batch. */
  skipUnreadable?: boolean;
}

/** Set once at start: whether this worker could open the database file (else only `open` requests). */
export interface UnsealReady {
  ready: true;
  reads: boolean;
}

export type UnsealRequest =
  | {
      kind: 'open';
      ids: string[];
      /** The sealed values one after the other; value i spans ends[i - 1] (or 0) to ends[i]. */
      bytes: Uint8Array;
      ends: Int32Array;
    }
  /** The samples of the model with lo < id <= hi, in id order. */
  | { kind: 'read'; lo: number; hi: number }
  /** The samples of the model of these persons, in id order (what a crash's catch-up reads again). */
  | { kind: 'persons'; ids: string[] };

/**
 * The embeddings of a batch one after the other (float32; embedding i ends at float ends[i]) with
 * their persons, or the person whose sample would not open.
 */
export type UnsealResponse =
  | ({ ok: true; ids: string[]; floats: Float32Array; ends: Int32Array } & Skipped)
  | ({ ok: true; ids: string[]; coded: unknown } & Skipped)
  | { ok: false; idPersona: string; error: string };

/** The samples left out of a batch (UnsealWorkerData.skipUnreadable). */
type Skipped = { unreadable?: UnreadableSample[] };

const port = parentPort!;
const { key, source, sink: sinkSpec, skipUnreadable } = workerData as UnsealWorkerData;
const keyBuffer = Buffer.from(key);
let sink: OpenedBatchSink | null = null;
try {
  if (sinkSpec)
    sink = ((await import(sinkSpec.url)) as { openedBatchSink(data: unknown): OpenedBatchSink }).openedBatchSink(sinkSpec.data);
} catch {
  sink = null; // the caller takes the floats
}

/** id_persona, embedding: rows as arrays (`raw`), cheaper to build than objects. */
type Row = [string, Buffer];
let range: Database.Statement<[string, number, number], Row> | null = null;
let blockOf: Database.Statement<[number, string, number], { leading: number | null; sealed: Buffer }> | null = null;
let persons: Database.Statement<[string, string], Row> | null = null;
try {
  if (source) {
    const db = new Database(source.file, { readonly: true, fileMustExist: true });
    range = db
      .prepare<
        [string, number, number],
        Row
      >('SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id > ? AND id <= ? ORDER BY id')
      .raw(true);
    try {
      blockOf = db.prepare<[number, string, number], { leading: number | null; sealed: Buffer }>(
        'SELECT leading, sealed FROM embedding_blocks WHERE block = ? AND model_id = ? AND (leading IS NULL OR leading >= ?)',
      );
    } catch {
      blockOf = null; // a database from before the blocks: every range is read row by row
    }
    persons = db
      .prepare<
        [string, string],
        Row
      >('SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id_persona IN (SELECT value FROM json_each(?)) ORDER BY id')
      .raw(true);
  }
} catch {
  range = persons = null; // the caller reads the pages itself
}
port.postMessage({ ready: true, reads: range !== null } satisfies UnsealReady);

/** openAll's memory, kept across batches: the values it opens are copied out at once. */
const opening = new OpenAllScratch();
let kept = new Float32Array(0);
function scratch(count: number): Float32Array<ArrayBuffer> {
  if (kept.length < count) kept = new Float32Array(count);
  return kept.subarray(0, count);
}

/** Hands a batch's opened floats to the sink, or back to the caller (transferred). */
function deliver(
  ids: string[],
  floats: Float32Array<ArrayBuffer>,
  floatEnds: Int32Array<ArrayBuffer>,
  unreadable: UnreadableSample[] = [],
): void {
  const skipped = unreadable.length > 0 ? { unreadable } : {};
  const sunk = sink?.(ids, floats, floatEnds);
  if (sunk) port.postMessage({ ok: true, ids, coded: sunk.coded, ...skipped } satisfies UnsealResponse, sunk.transfer);
  else
    port.postMessage({ ok: true, ids, floats, ends: floatEnds, ...skipped } satisfies UnsealResponse, [
      floats.buffer,
      floatEnds.buffer,
    ]);
}

/**
 * A whole range from its sealed block, if the range has one that opens; false otherwise (then
 * the rows are read: a block is only ever a copy of them).
 */
function fromBlock(lo: number, hi: number): boolean {
  if (!blockOf || lo % BLOCK_IDS !== 0 || hi !== lo + BLOCK_IDS) return false;
  const block = lo / BLOCK_IDS;
  // A caller wanting whole embeddings takes only a block of whole ones.
  const row = blockOf.get(block, source!.modelId, source!.leading ?? 2 ** 31);
  if (!row) return false;
  let opened;
  try {
    const floatsOf = (count: number) => (sink ? scratch(count) : new Float32Array(count));
    opened = openBlock(keyBuffer, source!.modelId, block, row.leading, row.sealed, floatsOf);
  } catch {
    return false;
  }
  deliver(opened.persons, opened.floats as Float32Array<ArrayBuffer>, opened.ends as Int32Array<ArrayBuffer>);
  return true;
}

function unseal(allIds: string[], sealedOf: (i: number) => Uint8Array): void {
  let i = 0;
  let ids = allIds;
  const unreadable: UnreadableSample[] = [];
  try {
    const sealed = ids.map((_, k) => sealedOf(k));
    const aads = ids.map((id) => sampleAad(id, 'embedding'));
    // The whole batch in two OpenSSL calls; when it does not hold, value by value, to name the bad one.
    let plain = openAll(keyBuffer, sealed, aads, opening);
    if (!plain) {
      plain = [];
      const kept: string[] = [];
      for (; i < ids.length; i++) {
        try {
          plain.push(open(keyBuffer, sealed[i]!, aads[i]!));
          kept.push(ids[i]!);
        } catch (error) {
          if (!skipUnreadable || !(error instanceof SealError)) throw error;
          unreadable.push({ idPersona: ids[i]!, reason: unreadableSampleMessage(ids[i]!, error.message) });
        }
      }
      ids = kept;
    }
    // A sink codes the floats here, and one buffer serves every batch; floats sent back are transferred.
    const count = plain.reduce((n, p) => n + p.byteLength, 0) / 4;
    const floats = sink ? scratch(count) : new Float32Array(count);
    const out = new Uint8Array(floats.buffer);
    const floatEnds = new Int32Array(plain.length);
    let at = 0;
    plain.forEach((p, k) => {
      out.set(p, at);
      at += p.byteLength;
      floatEnds[k] = at / 4;
    });
    deliver(ids, floats, floatEnds, unreadable);
  } catch (error) {
    port.postMessage({ ok: false, idPersona: ids[i] ?? '', error: (error as Error).message } satisfies UnsealResponse);
  }
}

port.on('message', (request: UnsealRequest) => {
  if (request.kind === 'open') {
    const { ids, bytes, ends } = request;
    unseal(ids, (i) => bytes.subarray(i ? ends[i - 1]! : 0, ends[i]!));
    return;
  }
  let rows: Row[];
  try {
    if (request.kind === 'read' && fromBlock(request.lo, request.hi)) return;
    rows =
      request.kind === 'persons'
        ? persons!.all(source!.modelId, JSON.stringify(request.ids))
        : range!.all(source!.modelId, request.lo, request.hi);
  } catch (error) {
    port.postMessage({ ok: false, idPersona: '', error: (error as Error).message } satisfies UnsealResponse);
    return;
  }
  unseal(
    rows.map((r) => r[0]),
    (i) => rows[i]![1],
  );
});
