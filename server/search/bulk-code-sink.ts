// Runs on the store's threads that open a start-up rebuild's batches (stream-embeddings.ts): codes
// each opened batch into the search index's shared memory and writes its float rows to the index's
// file, so that the index's own thread is left only filing the rows under their persons
// (QuantizedEmbeddingIndex.bulkLoader). The opening and the coding then share both cores.
import { closeSync, openSync, writeSync } from 'node:fs';
import { addInto } from '../matching/index.js';
import type { OpenedBatchSink } from '../threads/index.js';
import { RowCipher } from './row-cipher.js';
import { type CodeLayout, coderSpaceAt, coderSpaceBytes, RowWriter } from './row-writer.js';
import type { WasmMemory, WasmModule } from './wasm-kernel.js';

export interface BulkCodeData {
  memory: WasmMemory;
  /** The row coder, compiled (kernels/row-coder.wat). */
  coder: WasmModule;
  layout: CodeLayout;
  /** `spaces` working spaces of bulkSpaceBytes each from `spacesAt`, claimed by counters[1]. */
  spacesAt: number;
  spaces: number;
  /** Int32: [0] the next free row, [1] the next free working space. */
  counters: SharedArrayBuffer;
  /** Rows the index reserved: a batch that would pass it is sent back as floats. */
  capacity: number;
  /** The index's float-row file (empty, the rows written at row x dim x 4) and its row cipher. */
  vectorFile: string;
  cipher?: { key: Uint8Array; nonce: Uint8Array };
  /** Rows longer than the index's dim are coded by their first dim values (QuantizedIndexOptions.prefix). */
  prefix?: boolean;
}

/** What a coded batch sends back: its rows start..start+n-1, each row's hash and 4-bit error bound, the sum of its unit rows. */
export interface CodedBatch {
  start: number;
  hashes: Int32Array;
  err4: Float32Array;
  alpha2Max: number;
  sum: Float64Array;
}

/** A coder's working space and a fast-scan block to stage a shared block in. */
export function bulkSpaceBytes(dpad: number): number {
  return coderSpaceBytes(dpad) + 8 * dpad;
}

/**
 * Rows are claimed a batch at a time, so two threads may code rows of one 32-row fast-scan block,
 * whose bytes hold two rows each: the rows of a block a batch shares are coded into a private
 * block, then OR-ed in atomically. Each row's other codes and scales lie apart.
 */
export function openedBatchSink(data: BulkCodeData): OpenedBatchSink {
  const counters = new Int32Array(data.counters);
  const space = Atomics.add(counters, 1, 1);
  if (space >= data.spaces) return () => null;
  const { layout, capacity } = data;
  const { dim, dpad, pairs } = layout;
  const at = data.spacesAt + space * bulkSpaceBytes(dpad);
  const staging = at + coderSpaceBytes(dpad);
  const blockBytes = pairs * 16;
  const writer = new RowWriter(data.memory, coderSpaceAt(at, dpad), dim, dpad, data.coder);
  const cipher = data.cipher ? new RowCipher(Buffer.from(data.cipher.key), Buffer.from(data.cipher.nonce), dim * 4) : undefined;

  const claim = (n: number): number => {
    for (;;) {
      const next = Atomics.load(counters, 0);
      if (next + n > capacity) return -1;
      if (Atomics.compareExchange(counters, 0, next, next + n) === next) return next;
    }
  };

  // The batch's unit rows, as written to the file: kept across batches (fresh memory is slow to fault in).
  let units = new Float32Array(0);
  return (ids, floats, ends) => {
    const n = ids.length;
    const from = (i: number) => (i ? ends[i - 1]! : 0);
    for (let i = 0; i < n; i++) {
      const width = ends[i]! - from(i);
      if (width !== dim && !(data.prefix && width > dim)) return null; // the index skips them
    }
    const start = n > 0 ? claim(n) : -1;
    if (start < 0) return null;
    const end = start + n;
    const hashes = new Int32Array(n);
    const err4 = new Float32Array(n);
    const sum = new Float64Array(dim);
    if (units.length < n * dim) units = new Float32Array(n * dim);
    let alpha2Max = 0;
    const u8 = new Uint8Array(data.memory.buffer);
    for (let b = start >> 5; b <= (end - 1) >> 5; b++) {
      const lo = Math.max(start, b * 32);
      const hi = Math.min(end, b * 32 + 32);
      const shared = pairs > 0 && (lo !== b * 32 || hi !== b * 32 + 32);
      // A shared block's rows land in the staging block (fastScanSlot puts block b at fsAt + b x blockBytes).
      const into = shared ? { ...layout, fsAt: staging - b * blockBytes } : layout;
      if (shared) u8.fill(0, staging, staging + blockBytes);
      for (let row = lo; row < hi; row++) {
        const i = row - start;
        hashes[i] = writer.load(floats.subarray(from(i), from(i) + dim), true);
        writer.write(into, row);
        err4[i] = writer.err4;
        alpha2Max = Math.max(alpha2Max, writer.alpha2);
        units.set(writer.unit, i * dim);
        addInto(sum, writer.unit);
      }
      if (shared) {
        const block = layout.fsAt + b * blockBytes;
        for (let k = 0; k < blockBytes; k++) if (u8[staging + k]) Atomics.or(u8, block + k, u8[staging + k]!);
      }
    }
    const bytes = new Uint8Array(units.buffer, 0, n * dim * 4);
    cipher?.apply(start, bytes, n);
    // Opened per batch: a descriptor belongs to the process, and would outlive this thread.
    const fd = openSync(data.vectorFile, 'r+');
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, start * dim * 4 + done);
    } finally {
      closeSync(fd);
    }
    const coded: CodedBatch = { start, hashes, err4, alpha2Max, sum };
    return { coded, transfer: [hashes.buffer, err4.buffer, sum.buffer] };
  };
}
