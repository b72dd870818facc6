import type { SearchIndex } from './search-index.js';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, renameSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { addInto, normalize } from '../matching/similarity.js';
import type { SearchHit } from './embedding-index.js';
import { Rotation } from './rotation.js';
import { adviseHugePages, hugePagesState } from './huge-pages.js';
import { nativeKernels, withNativeKernel, type NativeKernels, type ScanKernel } from './native-kernels.js';
import { scanShard, selectNth } from './scan-shard.js';
import { FirstPassSizer, kthLargest, topIndices } from './shortlist.js';
import { hashAndDotRows, rowHash } from './row-scores.js';
import { RowCipher } from './row-cipher.js';
import { packSlotIds, SlotIds } from './slot-ids.js';
import {
  awaitSegments,
  claimSegments,
  readSegment,
  SEGMENT_BYTES,
  type Segment,
  segmentControl,
  segmentCount,
  type SegmentSeal,
  segmentsOf,
  TAG_BYTES,
  validSegmentBytes,
  writeSealedSegment,
} from './snapshot-segments.js';
import type { SnapshotOpenData } from './snapshot-open-worker.js';
import { CIPHER_PIECE_BYTES } from '../crypto/cipher-pieces.js';
import { FileVectorStore, MemoryVectorStore, readRegionRows, RESIDENT_FLOATS_MIB, type VectorStore } from './vector-store.js';
import { IndexIntegrityError, readFully, writeFully } from './index-files.js';
import { type CodeLayout, coderSpaceAt, coderSpaceBytes, fastScanSlot, RowWriter } from './row-writer.js';
import { type BulkCodeData, bulkSpaceBytes, type CodedBatch } from './bulk-code-sink.js';
import type { BatchSink } from '../store/store.js';
import { compiledBeside } from '../engines/worker-pool.js';
import {
  instantiateKernel,
  kernelModule,
  relaxedSimd,
  type Kernel,
  wasm,
  WASM_MAX_PAGES,
  WASM_PAGE,
  type WasmMemory,
  type WasmModule,
} from './wasm-kernel.js';

export type { SearchHit };

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

/** The first pass's rows and their bounds, the score below which rows were left out, and whether a list was full. */
interface FirstPass {
  rows: Int32Array;
  /** Each row's first-pass score (the pass's units: an upper bound over 2-bit codes). */
  scores: Float32Array;
  cutoff: number;
  full: boolean;
}

/** One search's exact scores so far (best sample per person slot) and what it asked for. */
interface Shortlist {
  q: Float32Array;
  s16: number;
  excludeSlot: number;
  wanted: number;
  trace: SearchTrace;
  scored: Map<number, number>;
}

/** What the last search did (for the benchmark and the tests). */
export interface SearchTrace {
  passes: number;
  firstPassRows: number;
  refinedRows: number;
  rerankedRows: number;
  /** Wall-clock time of the first pass's scans, both threads. */
  firstPassMs: number;
  /**
   * Of the first pass on two threads: the caller's scan of its half, and how long it then waited
   * for the worker's (a late wake-up or a slower half shows here).
   */
  firstPassOwnMs: number;
  firstPassWaitMs: number;
  /** The worker's scan of its half. */
  firstPassWorkerMs: number;
  /** Wall-clock time of the 4-bit scoring of the first pass's rows, and of the exact re-ranking. */
  refineMs: number;
  rerankMs: number;
  /** True when the shortlists reached their limits before the bound was met. */
  unsure: boolean;
}

const emptyTrace = (): SearchTrace => ({
  passes: 0,
  firstPassRows: 0,
  refinedRows: 0,
  rerankedRows: 0,
  firstPassMs: 0,
  firstPassOwnMs: 0,
  firstPassWaitMs: 0,
  firstPassWorkerMs: 0,
  refineMs: 0,
  rerankMs: 0,
  unsure: false,
});

const BLOCK = 4096; // rows per kernel call, a multiple of 32
const MAX_KEEP = 65536; // the longest shortlist per thread
// The first pass's rows of highest bound scored at 4 bits before any other (settle()).
const TIER_A = 256;
const THREADS_MAX = 2;
/** Threads that may code a bulk load at once, each in its own working space. */
const BULK_CODERS_MAX = 4;
// The control words shared with the scan worker.
const C_GEN = 0;
const C_DONE = 1;
const C_STOP = 2;
const C_Q = 3;
const C_ROWS = 4;
const C_SCALES = 5;
const C_START = 6;
const C_END = 7;
const C_KEEP = 8;
const C_OUT = 9;
const C_RES = 10;
const C_COUNT = 11;
const C_BLOCK = 12;
const C_MODE = 13;
const C_FLOOR = 14; // a float32, through a Float32Array view of the control words
const C_ERRS = 15;
const C_ESCALE = 16; // a float32, as C_FLOOR
const C_TASK_MS = 17; // a float32: the worker's time on its last task
const WORKER_TIMEOUT_MS = 2000;
/**
 * How long each thread spins before sleeping on the other: the worker for its next task after
 * one (a search hands it two, the first pass and the list), the caller for the worker's result.
 * Waking a thread asleep in Atomics.wait is slow on a VM (an idle virtual CPU is woken through
 * the hypervisor): at 100,000 rows it was a large part of a search's first pass.
 */
const WORKER_SPIN_MS = 1;
const CALLER_SPIN_MS = 5;
/** C_MODE of a worker task that scores a list at 4 bits (scanShard's modes are 0-2). */
const LIST_MODE = 3;
/** Lists shorter than this are scored by the caller's thread alone (a worker round trip costs ~0.1 ms). */
const PARALLEL_LIST = 2048;

const SNAPSHOT_MAGIC = 'ENRIDX09';
/** How long a load waits for a segment its helper thread claimed (a 4 MiB segment takes about 20 ms at 1M). */
const SNAPSHOT_HELPER_WAIT_MS = 30_000;
/**
 * 0-55: magic, dimensions, counts, the segment size (32), the two error maxima; 56: CRC-32 (in
 * clear; sealed, each segment's tag checks the parts instead); sealed snapshots: 64 the GCM nonce
 * (12 bytes) the segments' are made from, 92 the float rows' CTR nonce (8), 100 the flag 1.
 */
const SNAPSHOT_HEADER = 128;

/** QuantizedEmbeddingIndex.bulkLoader: handed to StationStore.streamEmbeddings, then finished. */
export interface BulkLoader {
  sink: (atMost: number) => BatchSink;
  take: (ids: string[], embeddings: Float32Array[], coded?: unknown) => void;
  finish: () => void;
}

export { IndexIntegrityError };

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

function workerSource(): string {
  return `
const { parentPort, workerData } = require('node:worker_threads');
const { memory, module, control, native } = workerData;
const withNativeKernel = ${withNativeKernel.toString()};
const wasmKernel = new WebAssembly.Instance(module, { env: { memory } }).exports;
// The same answers either way: where this thread cannot load the addon, its WebAssembly kernel scans.
const addon = (() => { try { return native && require(native.file); } catch { return null; } })();
const kernel = addon ? withNativeKernel(wasmKernel, addon, memory, native.isa, native.pairs, native.stride) : wasmKernel;
const selectNth = ${selectNth.toString()};
const scanShard = ${scanShard.toString()};
const c = new Int32Array(control);
const f = new Float32Array(control);
// The generation is read before saying ready: a task handed right after would otherwise be missed.
let seen = Atomics.load(c, ${C_GEN});
parentPort.postMessage('ready');
for (;;) {
  const spinUntil = performance.now() + ${WORKER_SPIN_MS};
  while (Atomics.load(c, ${C_GEN}) === seen && performance.now() < spinUntil);
  Atomics.wait(c, ${C_GEN}, seen);
  const g = Atomics.load(c, ${C_GEN});
  // Woken without a task (a search is about to hand one): spin for it.
  if (g === seen) continue;
  seen = g;
  if (Atomics.load(c, ${C_STOP})) break;
  const t0 = performance.now();
  if (c[${C_MODE}] === ${LIST_MODE}) kernel.scoreI4List(c[${C_Q}], c[${C_ROWS}], c[${C_SCALES}], c[${C_START}], c[${C_END}], c[${C_OUT}]);
  else c[${C_COUNT}] = scanShard(kernel, memory.buffer, c[${C_Q}], c[${C_ROWS}], c[${C_SCALES}], c[${C_START}], c[${C_END}], c[${C_KEEP}], c[${C_OUT}], c[${C_RES}], c[${C_BLOCK}], c[${C_MODE}], f[${C_FLOOR}], c[${C_ERRS}], f[${C_ESCALE}]);
  f[${C_TASK_MS}] = performance.now() - t0;
  Atomics.store(c, ${C_DONE}, g);
  Atomics.notify(c, ${C_DONE});
}
`;
}

/** A float row read back that is not the row the index wrote (its hash differs). */
function rowMismatch(row: number): IndexIntegrityError {
  return new IndexIntegrityError(`índice: la fila ${row} no coincide con su suma de control`);
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
  /** Pairs of dimensions in the 2-bit fast-scan codes: dpad / 2, or 0 when the first pass reads the 4-bit rows (no fast-scan codes kept). */
  private readonly pairs: number;
  private readonly rotation: Rotation;
  private readonly memory: WasmMemory;
  private readonly module: WasmModule;
  private readonly kernel: Kernel;
  /** What the passes scan with: the WebAssembly kernel, or its fast scan and list scoring done natively. */
  private readonly scanKernel: ScanKernel;
  private readonly native: NativeKernels | null;
  private readonly relaxed: boolean;
  private readonly writer: RowWriter;
  /** The rotation's random signs (f64), read by every coder. */
  private readonly signsAt: number;
  /** Working spaces of the threads that code a bulk load (bulk-code-sink.ts). */
  private readonly bulkSpacesAt: number;
  private readonly header: number;
  private readonly probeAt = 0;
  private readonly lutAt: number;
  private readonly outAt: number;
  private readonly resAt: number;
  private capacity = 0;
  private readonly fsAt: number;
  private codesAt = 0;
  private scales2At = 0;
  private scales4At = 0;
  /** Each row's 2-bit error (residual norm / sqrt(dpad)), f32, for the fast scan's per-row bound. */
  private errs2At = 0;
  private rowCount = 0;
  private deadRows = 0;
  private rowSlot = new Int32Array(0);
  private rowNext = new Int32Array(0);
  private rowHashes = new Int32Array(0);
  /** Each row's 4-bit residual norm: its own error bound in the second pass. */
  private rowErr4 = new Float32Array(0);
  private slotHead = new Int32Array(0);
  private slotLast = new Int32Array(0);
  private slotSamples = new Int32Array(0);
  private slotIds = new SlotIds();
  private freeSlots: number[] = [];
  private samples = 0;
  /** The sum of every live row's unit vector (SearchIndex.sampleSum). */
  private sum: Float64Array;
  private vectors: VectorStore;
  /** The largest 4-bit quantisation residual norm of any row, and the largest 2-bit scale. */
  private err4Max = 0;
  private alpha2Max = 0;
  private readonly scratch: Float32Array;
  private readonly qrot: Float64Array;
  private readonly qi16: Int16Array;
  private readonly lut: Int8Array;
  private readonly hashF: Float32Array;
  private readonly hashI: Int32Array;
  private worker: Worker | null = null;
  private control: Int32Array | null = null;
  private readonly parallelFrom: number;
  private readonly shortlist: number;
  private readonly shortlistPerHit: number;
  private readonly firstPass: number;
  private readonly margin: number;
  private readonly prefix: boolean;
  /** The first pass's kernel: 1 the 4-bit rows, 2 the 2-bit fast scan (scanShard's modes). */
  private readonly firstMode: 1 | 2;
  private readonly vectorFile: string | undefined;
  private readonly residentFloatBytes: number;
  private readonly snapshotSegmentBytes: number;
  private readonly sealKey: Buffer | undefined;
  private adaptiveFirstPass: number;
  private readonly firstPassSizer: FirstPassSizer;
  lastSearch: SearchTrace = emptyTrace();

  constructor(
    readonly dim: number,
    options: QuantizedIndexOptions = {},
  ) {
    if (!Number.isInteger(dim) || dim <= 0 || dim > 8192) throw new Error(`dimensión no válida: ${dim}`);
    this.dpad = Math.max(32, 2 ** Math.ceil(Math.log2(dim)));
    // The fast scan's 16-bit sums hold up to 1024 pairs: wider rows (beyond 2048 dimensions) are scanned at 4 bits.
    const bits = this.dpad > 2048 ? 4 : (options.firstPassBits ?? (this.dpad >= 256 ? 2 : 4));
    this.firstMode = bits === 2 ? 2 : 1;
    this.pairs = this.firstMode === 2 ? this.dpad / 2 : 0;
    this.rotation = new Rotation(dim, this.dpad);
    this.relaxed = options.relaxedSwizzle ?? relaxedSimd();
    this.module = kernelModule(this.dpad, align(dim, 4), this.relaxed);
    this.lutAt = align(2 * this.dpad, 64);
    this.outAt = align(this.lutAt + (this.dpad / 2) * 16, 64);
    this.resAt = this.outAt + THREADS_MAX * BLOCK * 8;
    this.signsAt = this.resAt + THREADS_MAX * MAX_KEEP * 8;
    const spaceAt = this.signsAt + 8 * this.dpad;
    this.bulkSpacesAt = spaceAt + coderSpaceBytes(this.dpad);
    this.header = align(this.bulkSpacesAt + BULK_CODERS_MAX * bulkSpaceBytes(this.dpad), WASM_PAGE);
    this.fsAt = this.header;
    this.memory = new wasm.Memory({ initial: this.header / WASM_PAGE, maximum: WASM_MAX_PAGES, shared: true });
    this.hugePagesOn = options.hugePages ?? true;
    this.adviseHugePages();
    this.kernel = instantiateKernel(this.module, this.memory);
    this.native = (options.nativeScan ?? true) ? nativeKernels().kernels : null;
    this.scanKernel = this.native
      ? withNativeKernel(this.kernel, this.native.addon, this.memory, this.native.isa, this.pairs, this.dpad)
      : this.kernel;
    this.writer = new RowWriter(this.memory, coderSpaceAt(spaceAt, this.dpad), dim, this.dpad);
    new Float64Array(this.memory.buffer, this.signsAt, this.dpad).set(this.rotation.signs);
    this.qi16 = new Int16Array(this.dpad);
    this.lut = new Int8Array(this.pairs * 16);
    this.scratch = new Float32Array(dim);
    this.sum = new Float64Array(dim);
    this.qrot = new Float64Array(this.dpad);
    this.hashF = new Float32Array(dim);
    this.hashI = new Int32Array(this.hashF.buffer);
    this.vectorFile = options.vectorFile;
    this.sealKey = options.sealKey;
    this.residentFloatBytes = options.residentFloatBytes ?? RESIDENT_FLOATS_MIB * 2 ** 20;
    this.snapshotSegmentBytes = options.snapshotSegmentBytes ?? SEGMENT_BYTES;
    if (!validSegmentBytes(this.snapshotSegmentBytes))
      throw new Error(`segmentos de instantánea no válidos: ${this.snapshotSegmentBytes}`);
    this.vectors = options.vectorFile ? this.fileStore(options.vectorFile) : new MemoryVectorStore(dim);
    if (this.vectors instanceof FileVectorStore) this.vectors.expectRows(options.capacity ?? 0);
    this.parallelFrom = options.parallelFrom ?? 65536;
    this.shortlist = options.shortlist ?? 16;
    this.shortlistPerHit = options.shortlistPerHit ?? 2;
    // The list the first search starts from; later ones are sized on what recent ones needed (FirstPassSizer).
    this.firstPass = Math.min(MAX_KEEP, options.firstPass ?? (this.firstMode === 2 ? 2048 : 512));
    this.adaptiveFirstPass = this.firstPass;
    // Unless fixed by the caller, the list may shrink to what the bound needs (small galleries need few rows).
    this.firstPassSizer = new FirstPassSizer(options.firstPass ?? 128, MAX_KEEP);
    this.margin = options.margin ?? 4;
    this.prefix = options.prefix ?? false;
    this.reserve(Math.max(1024, options.capacity ?? 0));
  }

  /** Resolves once a snapshot's ids are all hashed, which the first `find` would otherwise finish (benchmarks). */
  idsSettled(): Promise<void> {
    return this.slotIds.settled();
  }

  /** Resolves once no memory copy of the float rows is being made (tests, benchmarks). */
  floatsSettled(): Promise<void> {
    return this.vectors instanceof FileVectorStore ? this.vectors.settled() : Promise.resolve();
  }

  /** Where re-ranking reads the float rows: memory (their resident copy, or no file) or their file. */
  get floatsReadFrom(): 'memory' | 'file' {
    return this.vectors instanceof FileVectorStore && !this.vectors.inMemory ? 'file' : 'memory';
  }

  /** An index whose scan worker (with `threads: 2`) is running and ready. */
  static async create(dim: number, options: QuantizedIndexOptions = {}): Promise<QuantizedEmbeddingIndex> {
    const index = new QuantizedEmbeddingIndex(dim, options);
    if ((options.threads ?? 1) > 1) await index.startWorker();
    return index;
  }

  private async startWorker(): Promise<void> {
    const control = new Int32Array(new SharedArrayBuffer(32 * 4));
    const worker = new Worker(workerSource(), {
      eval: true,
      workerData: {
        memory: this.memory,
        module: this.module,
        control: control.buffer,
        native: this.native && { file: this.native.file, isa: this.native.isa, pairs: this.pairs, stride: this.dpad },
      },
    });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    worker.on('error', () => this.dropWorker());
    worker.unref();
    this.worker = worker;
    this.control = control;
  }

  private dropWorker(): void {
    const worker = this.worker;
    this.worker = null;
    this.control = null;
    void worker?.terminate();
  }

  /** Stops the scan worker and closes the vector file. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker && this.control) {
      Atomics.store(this.control, C_STOP, 1);
      Atomics.add(this.control, C_GEN, 1);
      Atomics.notify(this.control, C_GEN);
    }
    this.worker = null;
    this.control = null;
    await worker?.terminate();
    this.vectors.close();
  }

  private readonly hugePagesOn: boolean;
  private hugePagesAdvised = -1;

  // Turned off, the advice is against huge pages: where they are `always`, false alone would not keep them off.
  private adviseHugePages(): void {
    this.hugePagesAdvised = Math.max(this.hugePagesAdvised, adviseHugePages(this.memory, this.hugePagesOn));
  }

  /** Whether the codes are on huge pages: `advised`, `always (...)` or `no (why)` (huge-pages.ts). */
  get hugePages(): string {
    return hugePagesState(this.hugePagesOn, this.hugePagesAdvised);
  }

  /** What the first pass scans with: `native avx512bw`, `native avx2`, `wasm relaxed swizzle`, `wasm swizzle` or `wasm 4-bit`. */
  get firstPassKernel(): string {
    if (this.firstMode === 1) return 'wasm 4-bit';
    return this.native ? `native ${this.native.name}` : this.relaxed ? 'wasm relaxed swizzle' : 'wasm swizzle';
  }

  get threads(): number {
    return this.worker ? 2 : 1;
  }

  get personCount(): number {
    return this.slotIds.length - this.freeSlots.length;
  }

  personIds(): Iterable<string> {
    return this.slotIds.ids();
  }

  sampleSum(): Float64Array {
    return this.sum.slice();
  }

  get sampleCount(): number {
    return this.samples;
  }

  /** Rows held, tombstones included (they go at the next compaction). */
  get rowsHeld(): number {
    return this.rowCount;
  }

  /** Bytes the first pass reads: the 2-bit blocks, or the 4-bit rows when it scans those. */
  get firstPassBytes(): number {
    return this.pairs > 0 ? (align(this.rowCount, 32) * this.pairs) / 2 : (this.rowCount * this.dpad) / 2;
  }

  /** Bytes of the fast-scan and 4-bit codes and their scales: what the process holds per row. */
  get matrixBytes(): number {
    return this.rowCount * this.codeBytesPerRow;
  }

  private get codeBytesPerRow(): number {
    return this.pairs / 2 + this.dpad / 2 + 12;
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = align(Math.max(rows, Math.ceil(this.capacity * 1.5)), 32);
    // [header][fast-scan blocks][4-bit codes][fast-scan scales][4-bit scales]: the blocks stay in place, the rest moves up.
    const codesAt = this.fsAt + (capacity * this.pairs) / 2;
    const scales2At = codesAt + (capacity * this.dpad) / 2;
    const scales4At = scales2At + capacity * 4;
    const errs2At = scales4At + capacity * 4;
    const bytes = errs2At + capacity * 4;
    const pages = Math.ceil(bytes / WASM_PAGE) - this.memory.buffer.byteLength / WASM_PAGE;
    if (pages > 0) {
      if (bytes > WASM_MAX_PAGES * WASM_PAGE) throw new Error('índice: más de 4 GiB de códigos');
      this.memory.grow(pages);
      // Before the new pages are first touched: a page is made huge when it is first written.
      this.adviseHugePages();
    }
    if (this.capacity > 0) {
      // Highest region first, so that nothing is overwritten before it moves.
      const u8 = new Uint8Array(this.memory.buffer);
      u8.copyWithin(errs2At, this.errs2At, this.errs2At + this.rowCount * 4);
      u8.copyWithin(scales4At, this.scales4At, this.scales4At + this.rowCount * 4);
      u8.copyWithin(scales2At, this.scales2At, this.scales2At + this.rowCount * 4);
      u8.copyWithin(codesAt, this.codesAt, this.codesAt + (this.rowCount * this.dpad) / 2);
    }
    this.codesAt = codesAt;
    this.scales2At = scales2At;
    this.scales4At = scales4At;
    this.errs2At = errs2At;
    this.renewLayout();
    // Rows past the end score NaN: the kernels scan whole groups, possibly past the last row.
    new Float32Array(this.memory.buffer, scales2At, capacity).fill(NaN, this.rowCount);
    new Float32Array(this.memory.buffer, scales4At, capacity).fill(NaN, this.rowCount);
    const grow = (a: Int32Array, n: number) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.rowSlot = grow(this.rowSlot, capacity);
    this.rowNext = grow(this.rowNext, capacity);
    this.rowHashes = grow(this.rowHashes, capacity);
    const err4 = new Float32Array(capacity);
    err4.set(this.rowErr4);
    this.rowErr4 = err4;
    this.capacity = capacity;
  }

  private newSlot(idPersona: string): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slotIds.length;
      this.slotIds.push(idPersona);
      if (slot >= this.slotHead.length) {
        const n = Math.max(1024, this.slotHead.length * 2);
        for (const key of ['slotHead', 'slotLast', 'slotSamples'] as const) {
          const b = new Int32Array(n);
          b.set(this[key]);
          this[key] = b;
        }
      }
    } else {
      this.slotIds.set(slot, idPersona);
    }
    this.slotHead[slot] = -1;
    this.slotLast[slot] = -1;
    this.slotSamples[slot] = 0;
    return slot;
  }

  private viewBytes = -1;
  private u8View: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private f32View: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private f64View: Float64Array<ArrayBufferLike> = new Float64Array(0);

  /** Views over the whole memory, renewed after it grows (getting `memory.buffer` is not free). */
  private views(): {
    u8: Uint8Array<ArrayBufferLike>;
    f32: Float32Array<ArrayBufferLike>;
    f64: Float64Array<ArrayBufferLike>;
  } {
    const bytes = this.memory.buffer.byteLength;
    if (bytes !== this.viewBytes) {
      this.u8View = new Uint8Array(this.memory.buffer);
      this.f32View = new Float32Array(this.memory.buffer);
      this.f64View = new Float64Array(this.memory.buffer);
      this.viewBytes = bytes;
    }
    return { u8: this.u8View, f32: this.f32View, f64: this.f64View };
  }

  /** Where the codes and scales lie now: renewed by `reserve` (they move when the memory grows). */
  private layout!: CodeLayout;

  private renewLayout(): void {
    this.layout = {
      dim: this.dim,
      dpad: this.dpad,
      pairs: this.pairs,
      fsAt: this.fsAt,
      codesAt: this.codesAt,
      scales2At: this.scales2At,
      scales4At: this.scales4At,
      errs2At: this.errs2At,
      signsAt: this.signsAt,
    };
  }

  /** Codes the row the writer loaded at `row`, keeping its error bound. */
  private writeRow(row: number): void {
    this.writer.write(this.layout, row);
    this.rowErr4[row] = this.writer.err4;
    this.err4Max = Math.max(this.err4Max, this.writer.err4);
    this.alpha2Max = Math.max(this.alpha2Max, this.writer.alpha2);
  }

  private hashOf(v: Float32Array): number {
    this.hashF.set(v);
    return rowHash(this.hashI);
  }

  /** Appends embedding `e` (any norm) to the person in `slot`. */
  private appendRow(slot: number, e: Float32Array): void {
    if (this.rowCount === this.capacity) this.reserve(this.rowCount + 1);
    const row = this.rowCount++;
    this.rowHashes[row] = this.writer.load(e, true);
    this.writeRow(row);
    this.vectors.append(this.writer.unit);
    addInto(this.sum, this.writer.unit);
    this.rowSlot[row] = slot;
    this.rowNext[row] = -1;
    const last = this.slotLast[slot]!;
    if (last < 0) this.slotHead[slot] = row;
    else this.rowNext[last] = row;
    this.slotLast[slot] = row;
    this.slotSamples[slot]!++;
    this.samples++;
  }

  /**
   * A start-up rebuild whose rows the store's threads code as they open them (bulk-code-sink.ts):
   * `sink(atMost)` reserves the rows and gives the store what its threads need; `take` files each
   * coded batch's rows under their persons (a batch sent back as floats is added at `finish`, when
   * no thread writes any more). Null unless the index is empty and keeps its float rows in a file.
   */
  bulkLoader(): BulkLoader | null {
    if (this.rowCount !== 0 || this.personCount !== 0 || !(this.vectors instanceof FileVectorStore)) return null;
    const target = this.vectors.bulkTarget();
    if (!target) return null;
    const counters = new SharedArrayBuffer(8);
    const later: [string[], Float32Array[]][] = [];
    let taken = 0;
    return {
      sink: (atMost) => {
        // A bound from sample ids may be far above the samples a churned store holds: reserved
        // pages stay untouched, but never more than half the memory the codes may take; the
        // batches beyond come back as floats and are added at `finish`.
        const half = Math.floor((WASM_MAX_PAGES * WASM_PAGE - this.fsAt) / this.codeBytesPerRow / 2);
        this.reserve(Math.max(32, Math.min(atMost, half)));
        const data: BulkCodeData = {
          memory: this.memory,
          layout: this.layout,
          spacesAt: this.bulkSpacesAt,
          spaces: BULK_CODERS_MAX,
          counters,
          capacity: this.capacity,
          vectorFile: target.file,
          prefix: this.prefix,
          ...(target.cipher ? { cipher: target.cipher } : {}),
        };
        return { url: pathToFileURL(compiledBeside(import.meta.url, 'bulk-code-sink.js')).href, data };
      },
      take: (ids, embeddings, coded) => {
        if (coded === undefined) return void later.push([ids, embeddings]);
        const { start, hashes, err4, alpha2Max, sum } = coded as CodedBatch;
        addInto(this.sum, sum);
        for (let i = 0; i < ids.length; i++) {
          const row = start + i;
          const slot = this.slotIds.find(ids[i]!) ?? this.newSlot(ids[i]!);
          this.rowSlot[row] = slot;
          this.rowHashes[row] = hashes[i]!;
          this.rowErr4[row] = err4[i]!;
          this.err4Max = Math.max(this.err4Max, err4[i]!);
          this.slotSamples[slot]!++;
        }
        this.alpha2Max = Math.max(this.alpha2Max, alpha2Max);
        this.samples += ids.length;
        taken += ids.length;
      },
      finish: () => {
        const claimed = Atomics.load(new Int32Array(counters), 0);
        if (claimed !== taken) throw new Error(`índice: ${claimed} filas codificadas, ${taken} recibidas`);
        this.rowCount = claimed;
        (this.vectors as FileVectorStore).adopt(claimed);
        this.relink();
        for (const [ids, embeddings] of later) ids.forEach((id, i) => this.add(id, embeddings[i]!));
      },
    };
  }

  /** What the index holds of a vector: itself, its first `dim` values (`prefix`), or nothing (another dimension). */
  private view(v: Float32Array): Float32Array | null {
    if (v.length === this.dim) return v;
    return this.prefix && v.length > this.dim ? v.subarray(0, this.dim) : null;
  }

  /** Replaces a person's samples. */
  set(idPersona: string, embeddings: readonly Float32Array[]): void {
    this.remove(idPersona);
    const list = embeddings.map((e) => this.view(e)).filter((e) => e !== null);
    if (list.length === 0) return;
    const slot = this.newSlot(idPersona);
    for (const e of list) this.appendRow(slot, e);
  }

  add(idPersona: string, embedding: Float32Array): void {
    const v = this.view(embedding);
    if (!v) return;
    const slot = this.slotIds.find(idPersona) ?? this.newSlot(idPersona);
    this.appendRow(slot, v);
  }

  remove(idPersona: string): void {
    const slot = this.slotIds.find(idPersona);
    if (slot === undefined) return;
    // The rows leave the gallery's sum as they came in: read, and checked, before anything changes.
    const leaving = new Float64Array(this.dim);
    for (let row = this.slotHead[slot]!; row >= 0; row = this.rowNext[row]!)
      addInto(leaving, this.readChecked(this.vectors, row));
    addInto(this.sum, leaving, -1);
    const { u8, f32 } = this.views();
    const d = this.dpad;
    for (let row = this.slotHead[slot]!; row >= 0; row = this.rowNext[row]!) {
      // A tombstone: NaN >= threshold is false, so no kernel ever keeps it.
      f32[(this.scales2At >> 2) + row] = NaN;
      f32[(this.scales4At >> 2) + row] = NaN;
      // Nothing of the person stays behind: the float row is zeroed in its file, the codes here
      // (the last fast-scan block is saved whole, stale slots included).
      this.vectors.erase(row);
      u8.fill(0, this.codesAt + (row * d) / 2, this.codesAt + ((row + 1) * d) / 2);
      const fs = fastScanSlot(this.layout, row);
      for (let g = 0, at = fs.at; g < this.pairs; g++, at += 16) u8[at] = u8[at]! & (0xf0 >> fs.shift);
      this.rowSlot[row] = -1;
      this.deadRows++;
    }
    this.samples -= this.slotSamples[slot]!;
    this.slotIds.set(slot, undefined);
    this.freeSlots.push(slot);
    if (this.deadRows > Math.max(4096, this.rowCount / 4)) this.compact();
  }

  /** A disk store for new rows, sealed with a keystream of its own when the index seals. */
  private fileStore(file: string, cipher = this.rowCipher(), residentBytes = this.residentFloatBytes): FileVectorStore {
    return new FileVectorStore(this.dim, file, cipher, residentBytes);
  }

  private rowCipher(): RowCipher | undefined {
    return this.sealKey ? RowCipher.fresh(this.sealKey, this.dim * 4) : undefined;
  }

  /** Drops tombstoned rows: recodes the live rows, in order, from their float rows. */
  compact(): void {
    if (this.deadRows === 0) return;
    const old = this.vectors;
    const compactCipher = this.rowCipher();
    const fresh: VectorStore =
      old instanceof FileVectorStore
        ? // Written once and reopened below (which copies it into memory if it fits).
          this.fileStore(`${this.vectorFile!}.compact`, compactCipher, 0)
        : new MemoryVectorStore(this.dim);
    let w = 0;
    // Summed afresh from the rows kept: no rounding carried over from the removals.
    const sum = new Float64Array(this.dim);
    for (let r = 0; r < this.rowCount; r++) {
      if (this.rowSlot[r]! < 0) continue;
      const v = this.readChecked(old, r);
      addInto(sum, v);
      if (w !== r) {
        this.writer.load(v, false);
        this.writeRow(w);
        this.rowSlot[w] = this.rowSlot[r]!;
        this.rowHashes[w] = this.rowHashes[r]!;
      }
      fresh.append(v);
      w++;
    }
    const { f32 } = this.views();
    f32.fill(NaN, (this.scales2At >> 2) + w, (this.scales2At >> 2) + this.rowCount);
    f32.fill(NaN, (this.scales4At >> 2) + w, (this.scales4At >> 2) + this.rowCount);
    this.rowCount = w;
    this.deadRows = 0;
    this.sum = sum;
    this.relink();
    old.close();
    if (fresh instanceof FileVectorStore) {
      fresh.close();
      renameSync(`${this.vectorFile!}.compact`, this.vectorFile!);
      // Reopen the renamed file as the base of a new store.
      const store = this.fileStore(`${this.vectorFile!}.append`);
      store.useBase(openSync(this.vectorFile!, 'r+'), 0, w, compactCipher);
      this.vectors = store;
    } else {
      this.vectors = fresh;
    }
  }

  /** A float row, checked against the hash taken when it was added (disk rows can rot). */
  private readChecked(store: VectorStore, row: number): Float32Array {
    return this.checked(store.read(row, this.scratch), row);
  }

  private checked(v: Float32Array, row: number): Float32Array {
    if (this.hashOf(v) !== this.rowHashes[row]) throw rowMismatch(row);
    return v;
  }

  /** Rebuilds the per-person row chains from rowSlot. */
  private relink(): void {
    this.slotHead.fill(-1);
    this.slotLast.fill(-1);
    for (let r = 0; r < this.rowCount; r++) {
      const slot = this.rowSlot[r]!;
      this.rowNext[r] = -1;
      if (slot < 0) continue;
      const last = this.slotLast[slot]!;
      if (last < 0) this.slotHead[slot] = r;
      else this.rowNext[last] = r;
      this.slotLast[slot] = r;
    }
  }

  /** The probe, rotated, as the int16 vector of the 4-bit pass and the table of the 2-bit pass. */
  private prepareProbe(q: Float32Array): { s16: number; sLut: number } {
    const y = this.qrot;
    this.rotation.apply(q, y);
    const d = this.dpad;
    let max = 0;
    for (let i = 0; i < d; i++) max = Math.max(max, Math.abs(y[i]!));
    const s16 = max > 0 ? 16383 / max : 0;
    for (let i = 0; i < d; i++) this.qi16[i] = Math.round(y[i]! * s16);
    new Int16Array(this.memory.buffer, this.probeAt, d).set(this.qi16);
    // Entry c of pair g: y[2g] * level(c & 3) + y[2g+1] * level(c >> 2), level(x) = 2x - 3; scaled
    // so that four entries add up exactly in int8 (the kernel's groups; see fastScanBody).
    let top = 0;
    for (let g = 0; g < this.pairs; g++) top = Math.max(top, 3 * (Math.abs(y[2 * g]!) + Math.abs(y[2 * g + 1]!)));
    const sLut = top > 0 ? 31 / top : 0;
    const lut = this.lut;
    for (let g = 0; g < this.pairs; g++) {
      const a = y[2 * g]! * sLut;
      const b = y[2 * g + 1]! * sLut;
      for (let c = 0; c < 16; c++) lut[16 * g + c] = Math.round(a * (2 * (c & 3) - 3) + b * (2 * (c >> 2) - 3));
    }
    new Int8Array(this.memory.buffer, this.lutAt, this.pairs * 16).set(lut);
    return { s16, sLut };
  }

  /** The `k` best persons for a probe, best first, optionally leaving one person out. */
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[] {
    const persons = this.personCount;
    const viewed = this.view(probe);
    if (k <= 0 || persons === 0 || !viewed) return [];
    const q = normalize(viewed);
    const excludeSlot = exclude === undefined ? -1 : (this.slotIds.find(exclude) ?? -1);
    const wanted = Math.min(k, persons - (excludeSlot >= 0 ? 1 : 0));
    if (wanted <= 0) return [];
    // The worker wakes while the probe is prepared here.
    if (this.control && this.rowCount >= this.parallelFrom) Atomics.notify(this.control, C_GEN);
    const { s16, sLut } = this.prepareProbe(q);
    // Error (one standard deviation) of each estimate: residual norm / sqrt(dpad). The fast scan
    // adds each row's own (times `margin`, in the kernel: its scores are upper bounds), and here
    // the rounding of its table (half a unit per group); the 4-bit pass, the largest of any row.
    const fast = this.firstMode !== 1;
    const e1 = fast ? Math.sqrt((this.alpha2Max ** 2 * this.pairs) / 12) / (sLut || 1) : this.err4Max / Math.sqrt(this.dpad);
    const unit1 = fast ? sLut : s16;
    this.eScale = fast ? this.margin * sLut : 0;
    // A row of the first pass is worth scoring further only if its bound reaches this (pass units).
    const floorFor = (sk: number) => (sk - this.margin * e1) * unit1;
    let keep1 = this.adaptiveFirstPass;
    const trace = emptyTrace();
    this.lastSearch = trace;
    const timedFirstPass = (keep: number, floor?: number) => {
      const t0 = performance.now();
      const result = this.firstPassRows(keep, floor);
      trace.firstPassMs += performance.now() - t0;
      trace.passes++;
      return result;
    };
    const extra = excludeSlot >= 0 ? this.slotSamples[excludeSlot]! : 0;
    const list: Shortlist = { q, s16, excludeSlot, wanted, trace, scored: new Map() };
    const round1 = Math.max(this.shortlist, this.shortlistPerHit * k) + extra;
    let first = timedFirstPass(keep1);
    for (;;) {
      const sk = this.settle(list, first, floorFor, round1, extra);
      trace.firstPassRows = first.rows.length;
      // A row the first pass left out scored at most its cutoff; it can beat the k-th exact score
      // only if its error exceeds `margin` standard deviations.
      const floor1 = floorFor(sk);
      if (!(first.cutoff > floor1)) {
        // The next search starts from a list sized on what the recent ones needed.
        let needed = 0;
        for (let i = 0; i < first.scores.length; i++) if (first.scores[i]! >= floor1) needed++;
        this.adaptiveFirstPass = this.firstPassSizer.record(needed / this.threads);
        return this.best(list, k);
      }
      if (keep1 < MAX_KEEP && first.full) {
        // Scan again for every row at or above the floor: the k-th exact score can only rise
        // as candidates are added, so one more scan suffices unless the list overflows.
        keep1 = MAX_KEEP;
        first = timedFirstPass(keep1, sk === -Infinity ? -Infinity : floor1);
      } else {
        trace.unsure = true;
        return this.best(list, k);
      }
    }
  }

  /** The fast scan's per-row bound factor for the current probe (margin x table units). */
  private eScale = 0;

  /** The first pass over every row (2-bit or 4-bit codes): the best `keep` rows per thread and the score below which rows were left out. */
  private firstPassRows(keep: number, floor = -Infinity): FirstPass {
    const buffer = this.memory.buffer;
    const parts: { res: number; count: number }[] = [];
    let cutoff = floor;
    let full = false;
    const collect = (res: number, count: number) => {
      parts.push({ res, count });
      if (count >= keep) {
        full = true;
        const s = new Float32Array(buffer, res, count * 2);
        let low = Infinity;
        for (let i = 1; i < 2 * count; i += 2) low = Math.min(low, s[i]!);
        cutoff = Math.max(cutoff, low);
      }
    };
    const mode = this.firstMode;
    const [q, matrix, scales] =
      mode === 1 ? [this.probeAt, this.codesAt, this.scales4At] : [this.lutAt, this.fsAt, this.scales2At];
    const scan = (start: number, end: number, out: number, res: number) =>
      scanShard(
        this.scanKernel,
        buffer,
        q,
        matrix,
        scales,
        start,
        end,
        keep,
        out,
        res,
        BLOCK,
        mode,
        floor,
        this.errs2At,
        this.eScale,
      );
    const control = this.control;
    const end = align(this.rowCount, 32);
    if (control && this.rowCount >= this.parallelFrom) {
      const half = Math.floor(this.rowCount / 2 / 32) * 32;
      const res1 = this.resAt + MAX_KEEP * 8;
      control[C_Q] = q;
      control[C_ROWS] = matrix;
      control[C_SCALES] = scales;
      control[C_START] = half;
      control[C_END] = end;
      control[C_KEEP] = keep;
      control[C_OUT] = this.outAt + BLOCK * 8;
      control[C_RES] = res1;
      control[C_BLOCK] = BLOCK;
      control[C_MODE] = mode;
      const controlFloats = new Float32Array(control.buffer);
      controlFloats[C_FLOOR] = floor;
      control[C_ERRS] = this.errs2At;
      controlFloats[C_ESCALE] = this.eScale;
      const gen = this.startWorkerTask(control);
      const t0 = performance.now();
      collect(this.resAt, scan(0, half, this.outAt, this.resAt));
      const t1 = performance.now();
      const finished = this.workerFinished(control, gen);
      this.lastSearch.firstPassOwnMs += t1 - t0;
      this.lastSearch.firstPassWaitMs += performance.now() - t1;
      if (finished) {
        this.lastSearch.firstPassWorkerMs += controlFloats[C_TASK_MS]!;
        collect(res1, control[C_COUNT]!);
      }
      // The worker is stuck or gone: scan its shard here and carry on alone.
      else collect(res1, scan(half, end, this.outAt, res1));
    } else {
      collect(this.resAt, scan(0, end, this.outAt, this.resAt));
    }
    // Copied out: the second pass reuses this area.
    const total = parts.reduce((a, p) => a + p.count, 0);
    const rows = new Int32Array(total);
    const scores = new Float32Array(total);
    let w = 0;
    for (const { res, count } of parts) {
      const r = new Int32Array(buffer, res, count * 2);
      const sc = new Float32Array(buffer, res, count * 2);
      for (let i = 0; i < count; i++, w++) {
        rows[w] = r[2 * i]!;
        scores[w] = sc[2 * i + 1]!;
      }
    }
    return { rows, scores, cutoff, full };
  }

  /** Hands the task set in the control words to the scan worker; its generation. */
  private startWorkerTask(control: Int32Array): number {
    const gen = Atomics.add(control, C_GEN, 1) + 1;
    Atomics.notify(control, C_GEN);
    return gen;
  }

  /** Waits for the worker's task `gen`; false (and the worker dropped) when it is stuck or gone. */
  private workerFinished(control: Int32Array, gen: number): boolean {
    const deadline = performance.now() + WORKER_TIMEOUT_MS;
    const spinUntil = performance.now() + CALLER_SPIN_MS;
    while (Atomics.load(control, C_DONE) !== gen && performance.now() < spinUntil);
    let done = Atomics.load(control, C_DONE);
    while (done !== gen && performance.now() < deadline) {
      Atomics.wait(control, C_DONE, done, 50);
      done = Atomics.load(control, C_DONE);
    }
    if (done === gen) return true;
    this.dropWorker();
    return false;
  }

  /**
   * Scores the first pass's rows further, only as far as the bound asks, and re-ranks exactly
   * every person who may be in the top `wanted`; returns the `wanted`-th exact score so far
   * (-Infinity while fewer persons were scored). In three steps:
   * 1. the rows of highest first-pass bound (TIER_A, or 16 per person wanted) are scored at 4 bits
   *    and the best of those bounds re-ranked exactly (at least `round1` rows, more until `wanted`
   *    persons are scored): their `wanted`-th score is a lower bound of the final one;
   * 2. of the other rows, only those whose first-pass bound reaches that lower bound's floor are
   *    scored at 4 bits (at 1M x 512 about a quarter of the list: the rest could not beat it);
   * 3. every row scored whose 4-bit bound exceeds the `wanted`-th exact score is re-ranked.
   * Every row not re-ranked then has a bound below the final score; the caller checks the rows
   * the first pass left out.
   */
  private settle(list: Shortlist, first: FirstPass, floorFor: (sk: number) => number, round1: number, extra: number): number {
    const { rows, scores } = first;
    const n = rows.length;
    const inA = topIndices(scores, Math.min(n, Math.max(TIER_A, 16 * list.wanted) + extra));
    const rowsA = Int32Array.from(inA, (i) => rows[i]!);
    const boundsA = this.bounds4(rowsA, list);
    for (let r = Math.max(1, Math.min(round1, rowsA.length)); ; r = Math.min(2 * r, rowsA.length)) {
      const picked = topIndices(boundsA, r);
      this.rerankInto(
        list,
        Int32Array.from(picked, (i) => rowsA[i]!),
      );
      if (list.scored.size >= list.wanted || r >= rowsA.length) break;
    }
    // The `wanted`-th exact score so far: a lower bound of the final one.
    const sk = kthLargest(list.scored.values(), list.wanted);
    const floorB = sk === -Infinity ? -Infinity : floorFor(sk);
    const marked = new Uint8Array(n);
    for (const i of inA) marked[i] = 1;
    let countB = 0;
    for (let i = 0; i < n; i++) if (!marked[i] && scores[i]! >= floorB) countB++;
    const rowsB = new Int32Array(countB);
    for (let i = 0, w = 0; i < n; i++) if (!marked[i] && scores[i]! >= floorB) rowsB[w++] = rows[i]!;
    const boundsB = this.bounds4(rowsB, list);
    const beyond: number[] = [];
    const collect = (r: Int32Array, b: Float32Array) => {
      for (let i = 0; i < r.length; i++) if (b[i]! > sk && !list.scored.has(this.rowSlot[r[i]!]!)) beyond.push(r[i]!);
    };
    collect(rowsA, boundsA);
    collect(rowsB, boundsB);
    this.rerankInto(list, beyond);
    return kthLargest(list.scored.values(), list.wanted);
  }

  /**
   * The 4-bit score of each row, raised by `margin` times its own error (residual norm /
   * sqrt(dpad)): an upper bound of its exact score but with a negligible chance (score units).
   */
  private bounds4(candidates: Int32Array, list: Shortlist): Float32Array {
    const n = candidates.length;
    const bound = new Float32Array(n);
    if (n === 0) return bound;
    const t0 = performance.now();
    const buffer = this.memory.buffer;
    // The first pass's results are consumed: its area holds the list and the scores.
    const listAt = this.resAt;
    const scoresAt = this.resAt + THREADS_MAX * MAX_KEEP * 4;
    new Int32Array(buffer, listAt, n).set(candidates);
    const control = this.control;
    if (control && n >= PARALLEL_LIST) {
      // Random reads of 4-bit rows: the worker scores the second half of the list meanwhile.
      const half = n >> 1;
      control[C_MODE] = LIST_MODE;
      control[C_Q] = this.probeAt;
      control[C_ROWS] = this.codesAt;
      control[C_SCALES] = this.scales4At;
      control[C_START] = listAt + half * 4;
      control[C_END] = n - half;
      control[C_OUT] = scoresAt + half * 4;
      const gen = this.startWorkerTask(control);
      this.scanKernel.scoreI4List(this.probeAt, this.codesAt, this.scales4At, listAt, half, scoresAt);
      if (!this.workerFinished(control, gen))
        this.scanKernel.scoreI4List(this.probeAt, this.codesAt, this.scales4At, listAt + half * 4, n - half, scoresAt + half * 4);
    } else {
      this.scanKernel.scoreI4List(this.probeAt, this.codesAt, this.scales4At, listAt, n, scoresAt);
    }
    const scores = new Float32Array(buffer, scoresAt, n);
    const m = this.margin / Math.sqrt(this.dpad);
    for (let i = 0; i < n; i++) bound[i] = scores[i]! / list.s16 + m * this.rowErr4[candidates[i]!]!;
    list.trace.refinedRows += n;
    list.trace.refineMs += performance.now() - t0;
    return bound;
  }

  /** Exact cosine over every sample of each person of `candidates` not scored yet (best sample per person). */
  private rerankInto(list: Shortlist, candidates: ArrayLike<number>): void {
    const t0 = performance.now();
    const slots: number[] = [];
    const rows: number[] = [];
    for (let c = 0; c < candidates.length; c++) {
      const slot = this.rowSlot[candidates[c]!]!;
      if (slot < 0 || slot === list.excludeSlot || list.scored.has(slot)) continue;
      // Held until scored below, so that a person listed twice is read once.
      list.scored.set(slot, -1);
      slots.push(slot);
      for (let r = this.slotHead[slot]!; r >= 0; r = this.rowNext[r]!) rows.push(r);
    }
    if (!rows.length) return;
    // Every sample of these persons read (and, sealed, decrypted) at once, then checked and scored.
    const n = rows.length;
    if (this.rerankRows.length < n * this.dim) {
      this.rerankRows = new Float32Array(2 * n * this.dim);
      this.rerankHashes = new Int32Array(2 * n);
      this.rerankDots = new Float64Array(2 * n);
    }
    this.vectors.readRows(rows, this.rerankRows);
    hashAndDotRows(list.q, this.rerankRows, this.dim, n, this.rerankHashes, this.rerankDots);
    let i = 0;
    for (const slot of slots) {
      let best = -1;
      for (let r = this.slotHead[slot]!; r >= 0; r = this.rowNext[r]!, i++) {
        if (this.rerankHashes[i] !== this.rowHashes[r]) throw rowMismatch(r);
        best = Math.max(best, this.rerankDots[i]!);
      }
      list.scored.set(slot, best);
    }
    list.trace.rerankedRows += rows.length;
    list.trace.rerankMs += performance.now() - t0;
  }

  /** The `k` best persons scored, best first. */
  private best(list: Shortlist, k: number): SearchHit[] {
    return [...list.scored]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([slot, score]) => ({ idPersona: this.slotIds.get(slot)!, score }));
  }

  /** The re-ranked rows' floats, hashes and scores, grown as shortlists need. */
  private rerankRows = new Float32Array(0);
  private rerankHashes = new Int32Array(0);
  private rerankDots = new Float64Array(0);

  /**
   * Compacts, then writes the rows to `file` (through a temporary file, fsync and a rename): a
   * header, `label` (the caller's, e.g. the gallery version it matches), the ids, each row's
   * person and hash, the scales and codes as they lie in memory, then the float32 rows. A CRC-32
   * covers everything before the float rows; each float row is checked by its hash when read.
   */
  saveSnapshot(file: string, label = ''): void {
    this.compact();
    const rows = this.rowCount;
    const slotIndex = new Map<number, number>();
    const ids: string[] = [];
    const person = new Int32Array(rows);
    for (let r = 0; r < rows; r++) {
      const slot = this.rowSlot[r]!;
      let p = slotIndex.get(slot);
      if (p === undefined) {
        p = ids.length;
        slotIndex.set(slot, p);
        ids.push(this.slotIds.get(slot)!);
      }
      person[r] = p;
    }
    const labelBytes = Buffer.from(label, 'utf8');
    const idBytes = packSlotIds(ids);
    const segmentBytes = this.snapshotSegmentBytes;
    const layout = snapshotLayout(this.pairs, this.dpad, this.dim, rows, labelBytes.length, idBytes.length, segmentBytes);
    const buffer = this.memory.buffer;
    const parts: [Uint8Array, number][] = [
      [labelBytes, layout.label],
      [idBytes, layout.ids],
      [new Uint8Array(this.sum.buffer), layout.sum],
      [new Uint8Array(person.buffer), layout.person],
      [new Uint8Array(this.rowHashes.buffer, 0, rows * 4), layout.hashes],
      [new Uint8Array(this.rowErr4.buffer, 0, rows * 4), layout.errs],
      [new Uint8Array(buffer, this.scales2At, rows * 4), layout.scales2],
      [new Uint8Array(buffer, this.scales4At, rows * 4), layout.scales4],
      [new Uint8Array(buffer, this.errs2At, rows * 4), layout.errs2],
      [new Uint8Array(buffer, this.fsAt, layout.fsBytes), layout.fs],
      [new Uint8Array(buffer, this.codesAt, (rows * this.dpad) / 2), layout.codes],
    ];
    const header = Buffer.alloc(SNAPSHOT_HEADER);
    header.write(SNAPSHOT_MAGIC, 0, 'latin1');
    header.writeUInt32LE(this.dim, 8);
    // The first pass in the high byte: it decides which codes the snapshot holds.
    header.writeUInt32LE(this.dpad | (this.firstMode << 24), 12);
    header.writeUInt32LE(rows, 16);
    header.writeUInt32LE(ids.length, 20);
    header.writeUInt32LE(idBytes.length, 24);
    header.writeUInt32LE(labelBytes.length, 28);
    header.writeUInt32LE(segmentBytes, 32);
    // Bytes 36-39: unused (zero).
    header.writeDoubleLE(this.err4Max, 40);
    header.writeDoubleLE(this.alpha2Max, 48);
    // Sealed: everything after the label under GCM, in segments (snapshot-segments.ts) whose tags
    // precede the float rows (the header's first part and the label, which stays readable for
    // snapshotLabel, authenticated with each), the float rows under CTR.
    const seal = this.sealKey ? snapshotSeal(this.sealKey, header) : null;
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeFully(fd, labelBytes, layout.label);
      if (seal) {
        const aad = Buffer.concat([header.subarray(0, 56), labelBytes]);
        const piece = new Uint8Array(CIPHER_PIECE_BYTES);
        const tags = Buffer.alloc(layout.segments * TAG_BYTES);
        const sealed = parts.slice(1);
        for (const s of segmentsOf(
          sealed.map(([bytes, at]) => ({ fileAt: at, memoryAt: 0, bytes: bytes.length })),
          segmentBytes,
        )) {
          const clear = sealed[s.part]![0].subarray(s.memoryAt, s.memoryAt + s.length);
          writeSealedSegment(fd, seal.key, seal.nonce, aad, s.n, clear, s.fileAt, piece).copy(tags, s.n * TAG_BYTES);
        }
        writeFully(fd, tags, layout.tags);
      } else {
        // In clear, a CRC-32 over every part and the header's first part (sealed, the tags check them).
        let crc = 0;
        for (const [bytes] of parts) crc = crc32(bytes, crc);
        header.writeUInt32LE(crc32(header.subarray(0, 56), crc) >>> 0, 56);
        for (const [bytes, at] of parts.slice(1)) writeFully(fd, bytes, at);
      }
      writeFully(fd, header, 0);
      const chunkRows = 1024;
      const chunk = new Float32Array(chunkRows * this.dim);
      for (let i = 0; i < rows; i += chunkRows) {
        const n = Math.min(chunkRows, rows - i);
        this.vectors.readRange(i, n, chunk);
        const raw = new Uint8Array(chunk.buffer, 0, n * this.dim * 4);
        seal?.rows.apply(i, raw, n);
        writeFully(fd, raw, layout.floats + i * this.dim * 4);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  /** A thread that reads (and opens) `segments` of a snapshot into the shared memory beside this one (loadSnapshot). */
  private snapshotHelper(file: string, segments: Segment[], control: Int32Array, seal: SegmentSeal | null): Worker | null {
    const data: SnapshotOpenData = {
      file,
      memory: this.memory,
      segments,
      control: control.buffer as SharedArrayBuffer,
      seal: seal && {
        key: new Uint8Array(seal.key),
        base: new Uint8Array(seal.base),
        aad: new Uint8Array(seal.aad),
        tags: seal.tags,
      },
    };
    try {
      const worker = new Worker(compiledBeside(import.meta.url, 'snapshot-open-worker.js'), { workerData: data });
      worker.unref();
      // Whatever it leaves unclaimed this thread reads; a segment it claimed and never finished fails the load.
      worker.on('error', () => undefined);
      return worker;
    } catch {
      return null;
    }
  }

  /** The label a snapshot was saved with, or null when `file` is not a snapshot of this index's dimension. */
  static snapshotLabel(file: string): string | null {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return null;
    }
    try {
      const header = Buffer.alloc(SNAPSHOT_HEADER);
      if (readSync(fd, header, 0, SNAPSHOT_HEADER, 0) < SNAPSHOT_HEADER) return null;
      if (header.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC) return null;
      const label = Buffer.alloc(header.readUInt32LE(28));
      if (readSync(fd, label, 0, label.length, SNAPSHOT_HEADER) < label.length) return null;
      return label.toString('utf8');
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Replaces the contents with a snapshot's, checking its CRC (IndexIntegrityError when it fails).
   * With a vector file, the float rows are read in place from the snapshot.
   */
  loadSnapshot(file: string): void {
    // Writable when its float rows become the disk store's base: a deletion zeroes them there.
    const fd = openSync(file, this.vectors instanceof FileVectorStore ? 'r+' : 'r');
    let keepFd = false;
    try {
      const header = Buffer.alloc(SNAPSHOT_HEADER);
      readFully(fd, header, 0);
      if (header.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC)
        throw new IndexIntegrityError(`${file}: no es una instantánea del índice`);
      const dim = header.readUInt32LE(8);
      const dpad = header.readUInt32LE(12) & 0xffffff;
      const firstMode = header.readUInt32LE(12) >>> 24;
      const rows = header.readUInt32LE(16);
      const persons = header.readUInt32LE(20);
      const idLength = header.readUInt32LE(24);
      const labelLength = header.readUInt32LE(28);
      if (dim !== this.dim || dpad !== this.dpad || firstMode !== this.firstMode)
        throw new IndexIntegrityError(`${file}: dimensión ${dim}, el índice es de ${this.dim}`);
      if (idLength > 2 ** 30 || labelLength > 2 ** 20 || rows > 2 ** 28)
        throw new IndexIntegrityError(`${file}: instantánea dañada`);
      const segmentBytes = header.readUInt32LE(32);
      if (!validSegmentBytes(segmentBytes)) throw new IndexIntegrityError(`${file}: instantánea dañada`);
      const layout = snapshotLayout(this.pairs, dpad, dim, rows, labelLength, idLength, segmentBytes);
      const sealed = header[100] === 1;
      if (sealed !== (this.sealKey !== undefined))
        throw new IndexIntegrityError(`${file}: ${sealed ? 'sellada, y el índice no tiene la clave' : 'sin sellar'}`);
      const label = Buffer.alloc(labelLength);
      readFully(fd, label, layout.label);
      let seal: SegmentSeal | null = null;
      if (this.sealKey) {
        const tags = Buffer.alloc(layout.segments * TAG_BYTES);
        readFully(fd, tags, layout.tags);
        seal = { key: this.sealKey, base: header.subarray(64, 76), aad: Buffer.concat([header.subarray(0, 56), label]), tags };
      }
      // Reset, then fill the memory straight from the file.
      this.rowCount = 0;
      this.deadRows = 0;
      this.samples = 0;
      this.sum = new Float64Array(this.dim);
      this.freeSlots = [];
      this.slotIds.clear();
      this.slotHead = new Int32Array(0);
      this.slotLast = new Int32Array(0);
      this.slotSamples = new Int32Array(0);
      // Room for the enrollments after the start: growing a million rows' codes moves them all, a
      // stall the first enrollment after the load would wait for.
      this.reserve(rows + loadHeadroom(rows));
      const buffer = this.memory.buffer;
      const idBytes = Buffer.alloc(idLength);
      // Straight into the row arrays (reserved for `rows`), as the codes into the shared memory.
      const person = this.rowSlot.subarray(0, rows);
      // In the order they were written (and their segments numbered): this thread's arrays, then the shared memory's.
      const sum = new Float64Array(dim);
      const own: [Uint8Array, number][] = [
        [idBytes, layout.ids],
        [new Uint8Array(sum.buffer), layout.sum],
        [new Uint8Array(this.rowSlot.buffer, 0, rows * 4), layout.person],
        [new Uint8Array(this.rowHashes.buffer, 0, rows * 4), layout.hashes],
        [new Uint8Array(this.rowErr4.buffer, 0, rows * 4), layout.errs],
      ];
      const shared = [
        { memoryAt: this.scales2At, fileAt: layout.scales2, bytes: rows * 4 },
        { memoryAt: this.scales4At, fileAt: layout.scales4, bytes: rows * 4 },
        { memoryAt: this.errs2At, fileAt: layout.errs2, bytes: rows * 4 },
        { memoryAt: this.fsAt, fileAt: layout.fs, bytes: layout.fsBytes },
        { memoryAt: this.codesAt, fileAt: layout.codes, bytes: (rows * dpad) / 2 },
      ];
      const ownSegments = segmentsOf(
        own.map(([bytes, at]) => ({ fileAt: at, memoryAt: 0, bytes: bytes.length })),
        segmentBytes,
      );
      const sharedSegments = segmentsOf(shared, segmentBytes, ownSegments.length);
      const control = new Int32Array(segmentControl(sharedSegments.length));
      // A second thread for the shared memory's segments while this one reads its own.
      const helper = sharedSegments.length > 1 ? this.snapshotHelper(file, sharedSegments, control, seal) : null;
      try {
        for (const segment of ownSegments) readSegment(fd, own[segment.part]![0], segment, seal);
        claimSegments(control, sharedSegments, fd, new Uint8Array(buffer), seal);
        awaitSegments(control, sharedSegments, SNAPSHOT_HELPER_WAIT_MS);
        if (!seal) {
          let crc = crc32(label);
          for (const [bytes] of own) crc = crc32(bytes, crc);
          for (const p of shared) crc = crc32(new Uint8Array(buffer, p.memoryAt, p.bytes), crc);
          if (crc32(header.subarray(0, 56), crc) >>> 0 !== header.readUInt32LE(56))
            throw new IndexIntegrityError(`${file}: la instantánea no pasa su suma de control`);
        }
      } catch (error) {
        new Float32Array(buffer, this.scales2At, rows).fill(NaN);
        new Float32Array(buffer, this.scales4At, rows).fill(NaN);
        throw error instanceof IndexIntegrityError ? error : new IndexIntegrityError(`${file}: ${(error as Error).message}`);
      } finally {
        void helper?.terminate();
      }
      try {
        this.slotIds.unpack(idBytes, persons);
      } catch {
        throw new IndexIntegrityError(`${file}: instantánea dañada`);
      }
      const slots = persons + loadHeadroom(persons);
      this.slotHead = new Int32Array(slots).fill(-1);
      this.slotLast = new Int32Array(slots).fill(-1);
      this.slotSamples = new Int32Array(slots);
      new Float32Array(buffer, this.scales2At, this.capacity).fill(NaN, rows);
      new Float32Array(buffer, this.scales4At, this.capacity).fill(NaN, rows);
      this.rowCount = rows;
      this.samples = rows;
      for (let r = 0; r < rows; r++) this.slotSamples[person[r]!]!++;
      this.relink();
      this.sum = sum;
      this.err4Max = header.readDoubleLE(40);
      this.alpha2Max = header.readDoubleLE(48);
      this.vectors.clear();
      const rowsCipher = this.sealKey ? new RowCipher(this.sealKey, header.subarray(92, 100), dim * 4) : undefined;
      if (this.vectors instanceof FileVectorStore) {
        this.vectors.useBase(fd, layout.floats, rows, rowsCipher);
        keepFd = true;
      } else {
        const store = this.vectors as MemoryVectorStore;
        const chunkRows = 4096;
        const chunk = new Float32Array(chunkRows * dim);
        for (let i = 0; i < rows; i += chunkRows) {
          const n = Math.min(chunkRows, rows - i);
          readRegionRows(fd, layout.floats, rowsCipher, dim, i, chunk.subarray(0, n * dim));
          store.appendMany(chunk, n);
        }
      }
    } finally {
      if (!keepFd) closeSync(fd);
    }
  }
}

/**
 * A snapshot's sealing: fresh nonces written into `header` (the segments' GCM at 64, the rows' CTR
 * at 92, the flag at 100).
 */
function snapshotSeal(key: Buffer, header: Buffer) {
  const nonce = randomBytes(12);
  nonce.copy(header, 64);
  const rows = RowCipher.fresh(key, header.readUInt32LE(8) * 4);
  rows.nonce.copy(header, 92);
  header[100] = 1;
  return { key, nonce, rows };
}

function snapshotLayout(
  pairs: number,
  dpad: number,
  dim: number,
  rows: number,
  labelBytes: number,
  idBytes: number,
  segmentBytes: number,
) {
  const label = SNAPSHOT_HEADER;
  const ids = label + labelBytes;
  const sum = align(ids + idBytes, 64);
  const person = align(sum + dim * 8, 64);
  const hashes = person + rows * 4;
  const errs = hashes + rows * 4;
  const scales2 = errs + rows * 4;
  const scales4 = scales2 + rows * 4;
  const errs2 = scales4 + rows * 4;
  const fs = align(errs2 + rows * 4, 64);
  const fsBytes = (align(rows, 32) * pairs) / 2;
  const codes = align(fs + fsBytes, 64);
  const segments = segmentCount([idBytes, dim * 8, ...Array<number>(6).fill(rows * 4), fsBytes, (rows * dpad) / 2], segmentBytes);
  // A sealed snapshot's segment tags (zeros in clear), before the float rows: those end the file.
  const tags = align(codes + (rows * dpad) / 2, 64);
  const floats = align(tags + segments * TAG_BYTES, 64);
  return {
    label,
    ids,
    sum,
    person,
    hashes,
    errs,
    scales2,
    scales4,
    errs2,
    fs,
    fsBytes,
    codes,
    tags,
    segments,
    floats,
  };
}

/** Rows (or persons) a snapshot's load reserves beyond what it holds: a sixteenth, at least 1,024. */
function loadHeadroom(count: number): number {
  return Math.max(1024, Math.ceil(count / 16));
}
