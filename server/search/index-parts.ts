// What the modules of the search index share (quantized-index.ts assembles them): its memory and
// row table, its float rows, its coder and kernels, and the steps several of them take (growing
// the rows' room, coding a row, reading a float row back checked).
import { IndexIntegrityError } from './index-files.js';
import type { IndexMemory } from './index-memory.js';
import { align } from './index-memory.js';
import type { ScanKernel } from './native-kernels.js';
import { RowCipher } from './row-cipher.js';
import { rowHash } from './row-scores.js';
import type { RowTable } from './row-table.js';
import type { RowWriter } from './row-writer.js';
import { FileVectorStore, type VectorStore } from './vector-store.js';
import type { ScanWorker } from './worker-protocol.js';

export interface IndexParts {
  readonly dim: number;
  /** Padded (rotated) dimension: a power of two, at least 32. */
  readonly dpad: number;
  /** Pairs of dimensions in the 2-bit fast-scan codes: dpad / 2, or 0 when the first pass reads the 4-bit rows. */
  readonly pairs: number;
  /** The first pass's kernel: 1 the 4-bit rows, 2 the 2-bit fast scan (scanShard's modes). */
  readonly firstMode: 1 | 2;
  /** Vectors longer than `dim` are held and searched by their first `dim` values. */
  readonly prefix: boolean;
  readonly memory: IndexMemory;
  readonly rows: RowTable;
  /** Codes rows into the memory (the caller's thread's coder). */
  readonly writer: RowWriter;
  /** What the passes scan with: the WebAssembly kernel, or its fast scan and list scoring done natively. */
  readonly scanKernel: ScanKernel;
  /** The scan worker, while it runs (`threads: 2`). */
  worker: ScanWorker | null;
  /** The exact float rows: replaced by a compaction and a snapshot's load. */
  vectors: VectorStore;
  readonly vectorFile: string | undefined;
  readonly sealKey: Buffer | undefined;
  readonly residentFloatBytes: number;
  /** A row's worth of floats, and the view that hashes them. */
  readonly scratch: Float32Array;
  readonly hashF: Float32Array;
  readonly hashI: Int32Array;
}

/** Room for `rows` rows: grown by half at least, the codes moved up, the row arrays grown. */
export function reserveRows(parts: IndexParts, rows: number): void {
  const { memory } = parts;
  if (rows <= memory.capacity) return;
  const capacity = align(Math.max(rows, Math.ceil(memory.capacity * 1.5)), 32);
  memory.place(capacity, parts.rows.rowCount);
  parts.rows.grow(capacity);
}

/** Codes the row the writer loaded at `row`, keeping its error bounds. */
export function writeRow(parts: IndexParts, row: number): void {
  parts.writer.write(parts.memory.layout, row);
  parts.rows.noteErrors(row, parts.writer.err4, parts.writer.alpha2);
}

/** What the index holds of a vector: itself, its first `dim` values (`prefix`), or nothing (another dimension). */
export function viewOf(parts: IndexParts, v: Float32Array): Float32Array | null {
  if (v.length === parts.dim) return v;
  return parts.prefix && v.length > parts.dim ? v.subarray(0, parts.dim) : null;
}

/** A float row read back that is not the row the index wrote (its hash differs). */
export function rowMismatch(row: number): IndexIntegrityError {
  return new IndexIntegrityError(`índice: la fila ${row} no coincide con su suma de control`);
}

/** A float row, checked against the hash taken when it was added (disk rows can rot). */
export function readChecked(parts: IndexParts, store: VectorStore, row: number): Float32Array {
  const v = store.read(row, parts.scratch);
  parts.hashF.set(v);
  if (rowHash(parts.hashI) !== parts.rows.rowHashes[row]) throw rowMismatch(row);
  return v;
}

/** A keystream of its own for a new float-row file, when the index seals. */
export function rowCipher(parts: IndexParts): RowCipher | undefined {
  return parts.sealKey ? RowCipher.fresh(parts.sealKey, parts.dim * 4) : undefined;
}

/** A disk store for new rows, sealed with a keystream of its own when the index seals. */
export function fileStore(
  parts: IndexParts,
  file: string,
  cipher = rowCipher(parts),
  residentBytes = parts.residentFloatBytes,
): FileVectorStore {
  return new FileVectorStore(parts.dim, file, cipher, residentBytes);
}
