// The search index for galleries of millions (docs/search-index.md): the class the rest of the
// server uses, assembled from the modules of this folder, each with one job:
//   index-memory.ts   the WebAssembly memory's layout (fixed areas, the rows' regions, huge pages)
//   row-table.ts      the rows' persons, hashes and error bounds; the persons' chains and ids
//   row-writer.ts     a row coded into the memory (wasm-row-coder.ts, kernels/row-coder.wat)
//   probe-coder.ts    a probe coded for the kernels
//   query-plan.ts     a search: first pass (first-pass.ts), 4-bit scoring, exact re-ranking
//   worker-protocol.ts, scan-worker.ts   the scan worker: its control words, both sides
//   compaction.ts, bulk-load.ts, snapshot-file.ts   compaction, a threaded rebuild, snapshots
import type { SearchIndex } from './search-index.js';
import { addInto } from '../matching/index.js';
import type { SearchHit } from './embedding-index.js';
import { Rotation } from './rotation.js';
import { nativeKernels, withNativeKernel, type NativeKernels } from './native-kernels.js';
import { compact } from './compaction.js';
import { type BulkLoader, bulkLoader } from './bulk-load.js';
import { fileStore, type IndexParts, readChecked, reserveRows, viewOf, writeRow } from './index-parts.js';
import { align, IndexMemory } from './index-memory.js';
import { ProbeCoder } from './probe-coder.js';
import { QueryPlanner } from './query-plan.js';
import { RowTable } from './row-table.js';
import { RowWriter } from './row-writer.js';
import type { SearchTrace } from './search-trace.js';
import { loadSnapshot, saveSnapshot, snapshotLabel } from './snapshot-file.js';
import { SEGMENT_BYTES, validSegmentBytes } from './snapshot-segments.js';
import { FileVectorStore, MemoryVectorStore, RESIDENT_FLOATS_MIB } from './vector-store.js';
import { IndexIntegrityError } from './index-files.js';
import { instantiateKernel, kernelModule, type KernelModule, relaxedSimd } from './wasm-kernel.js';
import { ScanWorker } from './worker-protocol.js';

export type { SearchHit, SearchTrace, BulkLoader };
export { IndexIntegrityError };

export interface QuantizedIndexOptions {
  /** Threads that scan, the caller's included: 1 (default) or 2 (one scan worker). */
  threads?: number;
  /** Below this many rows the caller's thread scans alone (a worker round trip costs ~0.1 ms). */
  parallelFrom?: number;
  /** Rows expected, to reserve memory once. */
  capacity?: number;
  /** Keep the exact float32 rows in this file (read per re-ranked row) instead of in memory. */
  vectorFile?: string;
  /**
   * With `vectorFile`, a clear copy of the float rows is kept in memory too while they take at
   * most this many bytes (RESIDENT_FLOATS_MIB by default; 0: always read from the file).
   */
  residentFloatBytes?: number;
  /** The segments a snapshot is saved in (snapshot-segments.ts; SEGMENT_BYTES by default: tests make them small). */
  snapshotSegmentBytes?: number;
  /**
   * Seals what the index writes to disk (searchIndexKey of the data key): the float rows in its
   * files (AES-256-CTR, row by row) and its snapshot (the float rows so, the rest AES-256-GCM).
   * Without it both are in clear (benchmarks, tests).
   */
  sealKey?: Buffer;
  /**
   * Rows of best 4-bit bound re-ranked exactly at first, max(shortlist, shortlistPerHit * k) (16
   * and 2 by default): their k-th score tells which other rows the bound asks to re-rank.
   */
  shortlist?: number;
  shortlistPerHit?: number;
  /** Rows kept per thread by the first pass at first (2048 over 2-bit codes, 512 over 4-bit); widened when the bound asks. */
  firstPass?: number;
  /**
   * Codes scanned by the first pass: 2 bits (fast scan, the default from 256 padded dimensions) or
   * 4 bits (below: at 128-d the 2-bit error is too wide against the spread of scores, and the
   * 4-bit rows are only 64 bytes).
   */
  firstPassBits?: 2 | 4;
  /**
   * The fast scan's table lookups by relaxed swizzle (one instruction each on x64 instead of two):
   * the default wherever the engine compiles relaxed SIMD; false for plain swizzle (benchmarks).
   */
  relaxedSwizzle?: boolean;
  /**
   * The 2-bit first pass and the 4-bit scoring of its rows by the native kernels (native-kernels.ts)
   * where they are built and the CPU has AVX2 (the default); false: by the WebAssembly kernel
   * (benchmarks, tests). Same answers. (The sealed rows' XOR is native wherever the kernels load.)
   */
  nativeScan?: boolean;
  /**
   * Ask Linux to put the index's memory on 2 MiB pages (huge-pages.ts; the default): the first pass
   * then reads its codes without a page walk every 4 KiB. False: 4 KiB pages (benchmarks).
   */
  hugePages?: boolean;
  /** Standard deviations of quantisation error a row must be below the k-th exact score to be left out (default 4). */
  margin?: number;
  /**
   * Vectors given may be longer than `dim`: the index then holds and searches their first `dim`
   * values (a descriptor whose leading part is what identification scores, fused-descriptor.ts).
   */
  prefix?: boolean;
}

/**
 * A 1:N index with the API of `EmbeddingIndex` and the same scores, for galleries of millions
 * (docs/search-index.md). Every row is rotated (random signs + Walsh-Hadamard) and coded twice:
 * 2 bits per dimension in 32-row blocks scanned by a SIMD table-lookup kernel (the first pass over
 * every row), and 4 bits per dimension (the second pass over the first pass's candidates). The
 * best are re-ranked with the exact float32 cosine of every sample of their person, read from
 * memory or a file. Shortlists widen until every row left out is, by the quantisation error bound,
 * below the k-th exact score. Removal leaves tombstones (scale NaN, never kept) that a compaction drops.
 */
export class QuantizedEmbeddingIndex implements SearchIndex {
  /** Padded (rotated) dimension: a power of two, at least 32. */
  readonly dpad: number;
  private readonly parts: IndexParts;
  private readonly kernel: KernelModule;
  private readonly native: NativeKernels | null;
  private readonly relaxed: boolean;
  private readonly planner: QueryPlanner;
  private readonly snapshotSegmentBytes: number;

  constructor(
    readonly dim: number,
    options: QuantizedIndexOptions = {},
  ) {
    if (!Number.isInteger(dim) || dim <= 0 || dim > 8192) throw new Error(`dimensión no válida: ${dim}`);
    const dpad = Math.max(32, 2 ** Math.ceil(Math.log2(dim)));
    this.dpad = dpad;
    // The fast scan's 16-bit sums hold up to 1024 pairs: wider rows (beyond 2048 dimensions) are scanned at 4 bits.
    const bits = dpad > 2048 ? 4 : (options.firstPassBits ?? (dpad >= 256 ? 2 : 4));
    const firstMode = bits === 2 ? 2 : 1;
    const pairs = firstMode === 2 ? dpad / 2 : 0;
    const rotation = new Rotation(dim, dpad);
    this.relaxed = options.relaxedSwizzle ?? relaxedSimd();
    this.kernel = kernelModule(dpad, align(dim, 4), this.relaxed);
    const memory = new IndexMemory(dim, dpad, pairs, options.hugePages ?? true);
    const wasmKernel = instantiateKernel(this.kernel, memory.memory);
    this.native = (options.nativeScan ?? true) ? nativeKernels().kernels : null;
    const scanKernel = this.native
      ? withNativeKernel(wasmKernel, this.native.addon, memory.memory, this.native.isa, pairs, dpad)
      : wasmKernel;
    new Float64Array(memory.memory.buffer, memory.signsAt, dpad).set(rotation.signs);
    this.snapshotSegmentBytes = options.snapshotSegmentBytes ?? SEGMENT_BYTES;
    if (!validSegmentBytes(this.snapshotSegmentBytes))
      throw new Error(`segmentos de instantánea no válidos: ${this.snapshotSegmentBytes}`);
    const hashF = new Float32Array(dim);
    this.parts = {
      dim,
      dpad,
      pairs,
      firstMode,
      prefix: options.prefix ?? false,
      memory,
      rows: new RowTable(dim),
      writer: new RowWriter(memory.memory, memory.coderSpace, dim, dpad),
      scanKernel,
      worker: null,
      vectors: new MemoryVectorStore(dim),
      vectorFile: options.vectorFile,
      sealKey: options.sealKey,
      residentFloatBytes: options.residentFloatBytes ?? RESIDENT_FLOATS_MIB * 2 ** 20,
      scratch: new Float32Array(dim),
      hashF,
      hashI: new Int32Array(hashF.buffer),
    };
    if (options.vectorFile) {
      const store = fileStore(this.parts, options.vectorFile);
      store.expectRows(options.capacity ?? 0);
      this.parts.vectors = store;
    }
    this.planner = new QueryPlanner(this.parts, new ProbeCoder(rotation, memory), {
      parallelFrom: options.parallelFrom ?? 65536,
      shortlist: options.shortlist ?? 16,
      shortlistPerHit: options.shortlistPerHit ?? 2,
      firstPass: options.firstPass,
      margin: options.margin ?? 4,
    });
    reserveRows(this.parts, Math.max(1024, options.capacity ?? 0));
  }

  /** An index whose scan worker (with `threads: 2`) is running and ready. */
  static async create(dim: number, options: QuantizedIndexOptions = {}): Promise<QuantizedEmbeddingIndex> {
    const index = new QuantizedEmbeddingIndex(dim, options);
    if ((options.threads ?? 1) > 1) await index.startWorker();
    return index;
  }

  private async startWorker(): Promise<void> {
    const { parts, native } = this;
    const worker = await ScanWorker.start(
      {
        memory: parts.memory.memory,
        kernel: this.kernel,
        native: native && { file: native.file, isa: native.isa, pairs: parts.pairs, stride: parts.dpad },
      },
      () => {
        if (parts.worker === worker) parts.worker = null;
      },
    );
    parts.worker = worker;
  }

  /** Stops the scan worker and closes the vector file. */
  async close(): Promise<void> {
    const worker = this.parts.worker;
    this.parts.worker = null;
    await worker?.stop();
    this.parts.vectors.close();
  }

  /** What the last search did (for the benchmark and the tests). */
  get lastSearch(): SearchTrace {
    return this.planner.lastSearch;
  }

  /** Resolves once a snapshot's ids are all hashed, which the first `find` would otherwise finish (benchmarks). */
  idsSettled(): Promise<void> {
    return this.parts.rows.slotIds.settled();
  }

  /** Resolves once no memory copy of the float rows is being made (tests, benchmarks). */
  floatsSettled(): Promise<void> {
    const vectors = this.parts.vectors;
    return vectors instanceof FileVectorStore ? vectors.settled() : Promise.resolve();
  }

  /** Where re-ranking reads the float rows: memory (their resident copy, or no file) or their file. */
  get floatsReadFrom(): 'memory' | 'file' {
    const vectors = this.parts.vectors;
    return vectors instanceof FileVectorStore && !vectors.inMemory ? 'file' : 'memory';
  }

  /** Whether the codes are on huge pages: `advised`, `always (...)` or `no (why)` (huge-pages.ts). */
  get hugePages(): string {
    return this.parts.memory.hugePages;
  }

  /** What the first pass scans with: `native avx512bw`, `native avx2`, `wasm relaxed swizzle`, `wasm swizzle` or `wasm 4-bit`. */
  get firstPassKernel(): string {
    if (this.parts.firstMode === 1) return 'wasm 4-bit';
    return this.native ? `native ${this.native.name}` : this.relaxed ? 'wasm relaxed swizzle' : 'wasm swizzle';
  }

  get threads(): number {
    return this.parts.worker ? 2 : 1;
  }

  get personCount(): number {
    return this.parts.rows.personCount;
  }

  personIds(): Iterable<string> {
    return this.parts.rows.slotIds.ids();
  }

  sampleSum(): Float64Array {
    return this.parts.rows.sum.slice();
  }

  get sampleCount(): number {
    return this.parts.rows.samples;
  }

  /** Rows held, tombstones included (they go at the next compaction). */
  get rowsHeld(): number {
    return this.parts.rows.rowCount;
  }

  /** Bytes the first pass reads: the 2-bit blocks, or the 4-bit rows when it scans those. */
  get firstPassBytes(): number {
    const { pairs, dpad } = this.parts;
    const rows = this.parts.rows.rowCount;
    return pairs > 0 ? (align(rows, 32) * pairs) / 2 : (rows * dpad) / 2;
  }

  /** Bytes of the fast-scan and 4-bit codes and their scales: what the process holds per row. */
  get matrixBytes(): number {
    return this.parts.rows.rowCount * this.parts.memory.codeBytesPerRow;
  }

  /** Appends embedding `e` (any norm) to the person in `slot`. */
  private appendRow(slot: number, e: Float32Array): void {
    const { parts } = this;
    const table = parts.rows;
    if (table.rowCount === parts.memory.capacity) reserveRows(parts, table.rowCount + 1);
    const row = table.rowCount++;
    table.rowHashes[row] = parts.writer.load(e, true);
    writeRow(parts, row);
    parts.vectors.append(parts.writer.unit);
    addInto(table.sum, parts.writer.unit);
    table.link(row, slot);
  }

  /**
   * A start-up rebuild whose rows the store's threads code as they open them (bulk-load.ts,
   * bulk-code-sink.ts). Null unless the index is empty and keeps its float rows in a file.
   */
  bulkLoader(): BulkLoader | null {
    return bulkLoader(this.parts, (id, embedding) => this.add(id, embedding));
  }

  /** Replaces a person's samples. */
  set(idPersona: string, embeddings: readonly Float32Array[]): void {
    this.remove(idPersona);
    const list = embeddings.map((e) => viewOf(this.parts, e)).filter((e) => e !== null);
    if (list.length === 0) return;
    const slot = this.parts.rows.newSlot(idPersona);
    for (const e of list) this.appendRow(slot, e);
  }

  add(idPersona: string, embedding: Float32Array): void {
    const v = viewOf(this.parts, embedding);
    if (!v) return;
    const table = this.parts.rows;
    const slot = table.slotIds.find(idPersona) ?? table.newSlot(idPersona);
    this.appendRow(slot, v);
  }

  remove(idPersona: string): void {
    const { parts } = this;
    const table = parts.rows;
    const slot = table.slotIds.find(idPersona);
    if (slot === undefined) return;
    // The rows leave the gallery's sum as they came in: read, and checked, before anything changes.
    const leaving = new Float64Array(this.dim);
    for (let row = table.slotHead[slot]!; row >= 0; row = table.rowNext[row]!)
      addInto(leaving, readChecked(parts, parts.vectors, row));
    addInto(table.sum, leaving, -1);
    // Nothing of the person stays behind: the float row is zeroed in its file, the codes in memory.
    for (let row = table.slotHead[slot]!; row >= 0; row = table.rowNext[row]!) {
      parts.memory.erase(row);
      parts.vectors.erase(row);
    }
    table.freeSlot(slot);
    if (table.deadRows > Math.max(4096, table.rowCount / 4)) this.compact();
  }

  /** Drops tombstoned rows: recodes the live rows, in order, from their float rows. */
  compact(): void {
    compact(this.parts);
  }

  /** The `k` best persons for a probe, best first, optionally leaving one person out. */
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[] {
    return this.planner.search(probe, k, exclude);
  }

  /**
   * Compacts, then writes the rows to `file` (snapshot-file.ts): `label` is the caller's (e.g. the
   * gallery version it matches). Each float row is checked by its hash when read back.
   */
  saveSnapshot(file: string, label = ''): void {
    this.compact();
    saveSnapshot(this.parts, file, label, this.snapshotSegmentBytes);
  }

  /** The label a snapshot was saved with, or null when `file` is not a snapshot. */
  static snapshotLabel(file: string): string | null {
    return snapshotLabel(file);
  }

  /**
   * Replaces the contents with a snapshot's, checking its seal or CRC (IndexIntegrityError when it
   * fails). With a vector file, the float rows are read in place from the snapshot.
   */
  loadSnapshot(file: string): void {
    loadSnapshot(this.parts, file);
  }
}
