import type { SearchIndex } from './search-index.js';
import { closeSync, fsyncSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { dot, normalize } from '../matching/similarity.js';
import type { SearchHit } from './embedding-index.js';
import { scanShard } from './scan-shard.js';
import { FileVectorStore, MemoryVectorStore, type VectorStore } from './vector-store.js';
import {
  instantiateKernel,
  kernelModule,
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
  /** Rows of the int8 shortlist re-ranked exactly: max(shortlist, shortlistPerHit * k). */
  shortlist?: number;
  shortlistPerHit?: number;
  /**
   * A first pass over 4-bit codes (half the bytes: the scan is memory-bound) into a shortlist of
   * `coarseShortlist` rows per thread, scored again in int8 before the exact re-ranking. Default on
   * from `coarseFrom` rows (default 200,000).
   */
  coarse?: boolean;
  coarseFrom?: number;
  coarseShortlist?: number;
}

const BLOCK = 4096; // rows per kernel call
const MAX_KEEP = 16384; // the longest shortlist
const THREADS_MAX = 2;
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
const C_NIBBLES = 13;
const WORKER_TIMEOUT_MS = 2000;

const SNAPSHOT_MAGIC = 'ENRIDX02';
const SNAPSHOT_HEADER = 64;

/** The 4-bit code of each int8 value (indexed by its byte): round(x / 17), in -7..7, as a nibble. */
const NIBBLE = Uint8Array.from({ length: 256 }, (_, b) => Math.round((b < 128 ? b : b - 256) / 17) & 15);

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

function workerSource(): string {
  return `
const { parentPort, workerData } = require('node:worker_threads');
const { memory, module, control } = workerData;
const kernel = new WebAssembly.Instance(module, { env: { memory } }).exports;
const scanShard = ${scanShard.toString()};
const c = new Int32Array(control);
parentPort.postMessage('ready');
let seen = Atomics.load(c, ${C_GEN});
for (;;) {
  Atomics.wait(c, ${C_GEN}, seen);
  const g = Atomics.load(c, ${C_GEN});
  if (g === seen) continue;
  seen = g;
  if (Atomics.load(c, ${C_STOP})) break;
  c[${C_COUNT}] = scanShard(kernel, memory.buffer, c[${C_Q}], c[${C_ROWS}], c[${C_SCALES}], c[${C_START}], c[${C_END}], c[${C_KEEP}], c[${C_OUT}], c[${C_RES}], c[${C_BLOCK}], c[${C_NIBBLES}]);
  Atomics.store(c, ${C_DONE}, g);
  Atomics.notify(c, ${C_DONE});
}
`;
}

/**
 * A 1:N index with the API of `EmbeddingIndex` and the same scores, for galleries of millions:
 * int8 rows (one scale per row) in a shared WebAssembly memory, scanned by a SIMD kernel on one or
 * two threads into a shortlist, re-ranked with the exact float32 cosine over every sample of each
 * person in it. `search` stays synchronous: the caller's thread scans one shard while the worker
 * scans the other and waits for it (Atomics). Removal leaves tombstones (scale NaN, never matched)
 * that a compaction drops; snapshots store the int8 matrix, the float rows and the ids contiguously.
 */
export class QuantizedEmbeddingIndex implements SearchIndex {
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly module: WasmModule;
  private readonly kernel: Kernel;
  private readonly header: number;
  private readonly probeAt = 0;
  private readonly outAt: number;
  private readonly resAt: number;
  private capacity = 0;
  private rowsAt: number;
  private scalesAt = 0;
  private rowCount = 0;
  private deadRows = 0;
  private rowSlot = new Int32Array(0);
  private rowNext = new Int32Array(0);
  private slotHead = new Int32Array(0);
  private slotLast = new Int32Array(0);
  private slotSamples = new Int32Array(0);
  private slotIds: (string | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private freeSlots: number[] = [];
  private samples = 0;
  private vectors: VectorStore;
  private readonly scratch: Float32Array;
  private readonly unit: Float32Array;
  private readonly qrow: Int8Array;
  private readonly crow: Int8Array;
  private readonly qi16: Int16Array;
  private worker: Worker | null = null;
  private control: Int32Array | null = null;
  private readonly parallelFrom: number;
  private readonly shortlist: number;
  private readonly shortlistPerHit: number;
  private readonly vectorFile: string | undefined;
  private readonly coarse: boolean;
  private readonly coarseFrom: number;
  private readonly coarseShortlist: number;
  private codesAt = 0;

  constructor(
    readonly dim: number,
    options: QuantizedIndexOptions = {},
  ) {
    if (!Number.isInteger(dim) || dim <= 0 || dim > 8192) throw new Error(`dimensión no válida: ${dim}`);
    this.stride = align(dim, 32);
    this.module = kernelModule(this.stride, align(dim, 4));
    this.outAt = align(2 * this.stride, 64);
    this.resAt = this.outAt + THREADS_MAX * BLOCK * 8;
    this.header = align(this.resAt + THREADS_MAX * MAX_KEEP * 8, WASM_PAGE);
    this.rowsAt = this.header;
    this.memory = new wasm.Memory({ initial: this.header / WASM_PAGE, maximum: WASM_MAX_PAGES, shared: true });
    this.kernel = instantiateKernel(this.module, this.memory);
    this.qi16 = new Int16Array(this.stride);
    this.scratch = new Float32Array(dim);
    this.unit = new Float32Array(dim);
    this.qrow = new Int8Array(this.stride);
    this.crow = new Int8Array(this.stride / 2);
    this.vectorFile = options.vectorFile;
    this.vectors = options.vectorFile ? new FileVectorStore(dim, options.vectorFile) : new MemoryVectorStore(dim);
    this.parallelFrom = options.parallelFrom ?? 65536;
    this.shortlist = options.shortlist ?? 64;
    this.shortlistPerHit = options.shortlistPerHit ?? 8;
    this.coarse = options.coarse ?? true;
    this.coarseFrom = options.coarseFrom ?? 200_000;
    this.coarseShortlist = options.coarseShortlist ?? 1024;
    this.reserve(Math.max(1024, options.capacity ?? 0));
  }

  /** An index whose scan worker (with `threads: 2`) is running and ready. */
  static async create(dim: number, options: QuantizedIndexOptions = {}): Promise<QuantizedEmbeddingIndex> {
    const index = new QuantizedEmbeddingIndex(dim, options);
    if ((options.threads ?? 1) > 1) await index.startWorker();
    return index;
  }

  private async startWorker(): Promise<void> {
    const control = new Int32Array(new SharedArrayBuffer(16 * 4));
    const worker = new Worker(workerSource(), {
      eval: true,
      workerData: { memory: this.memory, module: this.module, control: control.buffer },
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

  get threads(): number {
    return this.worker ? 2 : 1;
  }

  get personCount(): number {
    return this.slotOf.size;
  }

  get sampleCount(): number {
    return this.samples;
  }

  /** Rows held, tombstones included (they go at the next compaction). */
  get rowsHeld(): number {
    return this.rowCount;
  }

  /** Bytes of the int8 rows, their 4-bit codes and scales. */
  get matrixBytes(): number {
    return this.rowCount * (this.stride * 1.5 + 4);
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = align(Math.max(rows, Math.ceil(this.capacity * 1.5)), 4);
    // [header][int8 rows][4-bit codes][scales]: the rows stay in place, the other two move up.
    const codesAt = this.header + capacity * this.stride;
    const scalesAt = codesAt + (capacity * this.stride) / 2;
    const bytes = scalesAt + capacity * 4;
    const pages = Math.ceil(bytes / WASM_PAGE) - this.memory.buffer.byteLength / WASM_PAGE;
    if (pages > 0) {
      if (bytes > WASM_MAX_PAGES * WASM_PAGE) throw new Error('índice: más de 4 GiB de vectores int8');
      this.memory.grow(pages);
    }
    if (this.capacity > 0) {
      const u8 = new Uint8Array(this.memory.buffer);
      u8.copyWithin(scalesAt, this.scalesAt, this.scalesAt + this.rowCount * 4);
      u8.copyWithin(codesAt, this.codesAt, this.codesAt + (this.rowCount * this.stride) / 2);
    }
    this.codesAt = codesAt;
    this.scalesAt = scalesAt;
    // Rows past the end score NaN: the kernel scans four at a time, possibly past the last row.
    new Float32Array(this.memory.buffer, scalesAt, capacity).fill(NaN, this.rowCount);
    const grow = (a: Int32Array, n: number) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.rowSlot = grow(this.rowSlot, capacity);
    this.rowNext = grow(this.rowNext, capacity);
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
      this.slotIds[slot] = idPersona;
    }
    this.slotHead[slot] = -1;
    this.slotLast[slot] = -1;
    this.slotSamples[slot] = 0;
    this.slotOf.set(idPersona, slot);
    return slot;
  }

  private viewBytes = -1;
  private i8View: Int8Array<ArrayBufferLike> = new Int8Array(0);
  private f32View: Float32Array<ArrayBufferLike> = new Float32Array(0);

  /** Views over the whole memory, renewed after it grows (getting `memory.buffer` is not free). */
  private views(): { i8: Int8Array<ArrayBufferLike>; f32: Float32Array<ArrayBufferLike> } {
    const bytes = this.memory.buffer.byteLength;
    if (bytes !== this.viewBytes) {
      this.i8View = new Int8Array(this.memory.buffer);
      this.f32View = new Float32Array(this.memory.buffer);
      this.viewBytes = bytes;
    }
    return { i8: this.i8View, f32: this.f32View };
  }

  /**
   * `normalize(e)` of similarity.ts into `this.unit` (the same floats, so the same scores as
   * EmbeddingIndex), without allocating.
   */
  private normalizeIntoUnit(e: Float32Array): Float32Array {
    let sum = 0;
    for (let i = 0; i < e.length; i++) sum += e[i]! * e[i]!;
    const norm = Math.sqrt(sum) || 1;
    const u = this.unit;
    for (let i = 0; i < e.length; i++) u[i] = e[i]! / norm;
    return u;
  }

  /** Quantises the normalised row `v` into the matrix at `row`. */
  private writeRow(row: number, v: Float32Array): void {
    let max = 0;
    for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
    const s = max > 0 ? 127 / max : 0;
    const { i8, f32 } = this.views();
    // Quantised in a private array, then copied: element stores into a shared buffer are slow.
    const q = this.qrow;
    for (let i = 0; i < v.length; i++) {
      const x = v[i]! * s;
      q[i] = x + (x < 0 ? -0.5 : 0.5); // the store truncates: rounds half away from zero
    }
    i8.set(q, this.rowsAt + row * this.stride);
    // The 4-bit code: round(q / 17) in -7..7. Per 32 dimensions, eight 16-bit lanes (little-endian)
    // of four nibbles, nibble k of lane i holding dimension 8k + i (see wasm-kernel.ts).
    const c = this.crow;
    for (let g = 0; g < this.stride; g += 32) {
      for (let i = 0; i < 8; i++) {
        c[g / 2 + 2 * i] = NIBBLE[q[g + i]! & 255]! | (NIBBLE[q[g + 8 + i]! & 255]! << 4);
        c[g / 2 + 2 * i + 1] = NIBBLE[q[g + 16 + i]! & 255]! | (NIBBLE[q[g + 24 + i]! & 255]! << 4);
      }
    }
    i8.set(c, this.codesAt + (row * this.stride) / 2);
    f32[(this.scalesAt >> 2) + row] = max > 0 ? max / 127 : 0;
  }

  private appendRow(slot: number, v: Float32Array): void {
    if (this.rowCount === this.capacity) this.reserve(this.rowCount + 1);
    const row = this.rowCount++;
    this.writeRow(row, v);
    this.vectors.append(v);
    this.rowSlot[row] = slot;
    this.rowNext[row] = -1;
    const last = this.slotLast[slot]!;
    if (last < 0) this.slotHead[slot] = row;
    else this.rowNext[last] = row;
    this.slotLast[slot] = row;
    this.slotSamples[slot]!++;
    this.samples++;
  }

  /** Replaces a person's samples. */
  set(idPersona: string, embeddings: readonly Float32Array[]): void {
    this.remove(idPersona);
    const list = embeddings.filter((e) => e.length === this.dim);
    if (list.length === 0) return;
    const slot = this.newSlot(idPersona);
    for (const e of list) this.appendRow(slot, this.normalizeIntoUnit(e));
  }

  add(idPersona: string, embedding: Float32Array): void {
    if (embedding.length !== this.dim) return;
    const slot = this.slotOf.get(idPersona) ?? this.newSlot(idPersona);
    this.appendRow(slot, this.normalizeIntoUnit(embedding));
  }

  remove(idPersona: string): void {
    const slot = this.slotOf.get(idPersona);
    if (slot === undefined) return;
    const scales = new Float32Array(this.memory.buffer, this.scalesAt, this.rowCount);
    for (let row = this.slotHead[slot]!; row >= 0; row = this.rowNext[row]!) {
      scales[row] = NaN; // a tombstone: NaN >= threshold is false, so the kernel never keeps it
      this.rowSlot[row] = -1;
      this.deadRows++;
    }
    this.samples -= this.slotSamples[slot]!;
    this.slotOf.delete(idPersona);
    this.slotIds[slot] = undefined;
    this.freeSlots.push(slot);
    if (this.deadRows > Math.max(4096, this.rowCount / 4)) this.compact();
  }

  /** Drops tombstoned rows: moves the live rows down, in order, and rewrites the float rows. */
  compact(): void {
    if (this.deadRows === 0) return;
    const old = this.vectors;
    const fresh: VectorStore =
      old instanceof FileVectorStore
        ? new FileVectorStore(this.dim, `${this.vectorFile!}.compact`)
        : new MemoryVectorStore(this.dim);
    const u8 = new Uint8Array(this.memory.buffer);
    const scales = new Float32Array(this.memory.buffer, this.scalesAt, this.rowCount);
    let w = 0;
    for (let r = 0; r < this.rowCount; r++) {
      if (this.rowSlot[r]! < 0) continue;
      if (w !== r) {
        u8.copyWithin(this.rowsAt + w * this.stride, this.rowsAt + r * this.stride, this.rowsAt + (r + 1) * this.stride);
        const half = this.stride / 2;
        u8.copyWithin(this.codesAt + w * half, this.codesAt + r * half, this.codesAt + (r + 1) * half);
        scales[w] = scales[r]!;
        this.rowSlot[w] = this.rowSlot[r]!;
      }
      fresh.append(old.read(r, this.scratch));
      w++;
    }
    scales.fill(NaN, w);
    this.rowCount = w;
    this.deadRows = 0;
    this.relink();
    old.close();
    if (fresh instanceof FileVectorStore) {
      fresh.close();
      renameSync(`${this.vectorFile!}.compact`, this.vectorFile!);
      // Reopen the renamed file as the base of a new store.
      const store = new FileVectorStore(this.dim, `${this.vectorFile!}.append`);
      store.useBase(openSync(this.vectorFile!, 'r'), 0, w);
      this.vectors = store;
    } else {
      this.vectors = fresh;
    }
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

  /** The `k` best persons for a probe, best first, optionally leaving one person out. */
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[] {
    if (k <= 0 || this.slotOf.size === 0 || probe.length !== this.dim) return [];
    const q = normalize(probe);
    const excludeSlot = exclude === undefined ? -1 : (this.slotOf.get(exclude) ?? -1);
    const wanted = Math.min(k, this.slotOf.size - (excludeSlot >= 0 ? 1 : 0));
    let keep = Math.max(this.shortlist, this.shortlistPerHit * k) + (excludeSlot >= 0 ? this.slotSamples[excludeSlot]! : 0);
    for (;;) {
      const hits = this.searchRows(q, k, excludeSlot, Math.min(MAX_KEEP, keep));
      // Persons with many samples can fill the shortlist with fewer than k persons: widen it.
      if (hits.length >= wanted || keep >= MAX_KEEP || keep >= this.rowCount) return hits;
      keep *= 4;
    }
  }

  private searchRows(q: Float32Array, k: number, excludeSlot: number, keep: number): SearchHit[] {
    // The probe in int16, as fine as the int32 sums allow.
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(q[i]!));
    const top = Math.min(16383, Math.floor(2e9 / (127 * this.stride)));
    const s = max > 0 ? top / max : 0;
    for (let i = 0; i < this.dim; i++) this.qi16[i] = Math.round(q[i]! * s);
    new Int16Array(this.memory.buffer, this.probeAt, this.stride).set(this.qi16);

    const buffer = this.memory.buffer;
    const candidates: number[] = [];
    const collect = (res: number, count: number) => {
      const rows = new Int32Array(buffer, res, count * 2);
      for (let i = 0; i < count; i++) candidates.push(rows[2 * i]!);
    };
    // First pass: 4-bit codes (half the bytes of the int8 rows) into a long shortlist, or the int8 rows.
    const coarse = this.coarse && this.rowCount >= this.coarseFrom;
    const passKeep = coarse ? Math.min(MAX_KEEP, Math.max(this.coarseShortlist, 4 * keep)) : keep;
    const matrix = coarse ? this.codesAt : this.rowsAt;
    const nibbles = coarse ? 1 : 0;
    const scan = (start: number, end: number, out: number, res: number) =>
      scanShard(this.kernel, buffer, this.probeAt, matrix, this.scalesAt, start, end, passKeep, out, res, BLOCK, nibbles);
    const control = this.control;
    const end = align(this.rowCount, 4);
    if (control && this.rowCount >= this.parallelFrom) {
      const half = Math.floor(this.rowCount / 2 / 16) * 16;
      const res1 = this.resAt + MAX_KEEP * 8;
      control[C_Q] = this.probeAt;
      control[C_ROWS] = matrix;
      control[C_SCALES] = this.scalesAt;
      control[C_START] = half;
      control[C_END] = end;
      control[C_KEEP] = passKeep;
      control[C_OUT] = this.outAt + BLOCK * 8;
      control[C_RES] = res1;
      control[C_BLOCK] = BLOCK;
      control[C_NIBBLES] = nibbles;
      const gen = Atomics.add(control, C_GEN, 1) + 1;
      Atomics.notify(control, C_GEN);
      collect(this.resAt, scan(0, half, this.outAt, this.resAt));
      const deadline = performance.now() + WORKER_TIMEOUT_MS;
      let done = Atomics.load(control, C_DONE);
      while (done !== gen && performance.now() < deadline) {
        Atomics.wait(control, C_DONE, done, 50);
        done = Atomics.load(control, C_DONE);
      }
      if (done === gen) {
        collect(res1, control[C_COUNT]!);
      } else {
        // The worker is stuck or gone: scan its shard here and carry on alone.
        this.dropWorker();
        collect(res1, scan(half, end, this.outAt, res1));
      }
    } else {
      collect(this.resAt, scan(0, end, this.outAt, this.resAt));
    }
    if (coarse) this.refine(candidates, keep);
    return this.rerank(q, candidates, k, excludeSlot);
  }

  /** Second pass: the int8 score of each coarse candidate; keeps the `keep` best, in place. */
  private refine(candidates: number[], keep: number): void {
    const scored: { row: number; score: number }[] = [];
    const wanted = new Set(candidates);
    const groups = new Set(candidates.map((r) => r - (r % 4)));
    const { f32 } = this.views();
    const outRow = new Int32Array(f32.buffer, this.outAt, 8);
    const outScore = new Float32Array(f32.buffer, this.outAt, 8);
    for (const g of groups) {
      const n = this.kernel.scanI8(this.probeAt, this.rowsAt, this.scalesAt, g, g + 4, -Infinity, this.outAt);
      for (let i = 0; i < n; i++) {
        const row = outRow[2 * i]!;
        if (wanted.has(row)) scored.push({ row, score: outScore[2 * i + 1]! });
      }
    }
    scored.sort((a, b) => b.score - a.score);
    candidates.length = 0;
    for (let i = 0; i < Math.min(keep, scored.length); i++) candidates.push(scored[i]!.row);
  }

  /** Exact cosine over every sample of each person in the shortlist; the `k` best persons. */
  private rerank(q: Float32Array, candidates: readonly number[], k: number, excludeSlot: number): SearchHit[] {
    const seen = new Set<number>();
    const hits: SearchHit[] = [];
    for (const row of candidates) {
      const slot = this.rowSlot[row]!;
      if (slot < 0 || slot === excludeSlot || seen.has(slot)) continue;
      seen.add(slot);
      let best = -1;
      for (let r = this.slotHead[slot]!; r >= 0; r = this.rowNext[r]!)
        best = Math.max(best, dot(q, this.vectors.read(r, this.scratch)));
      hits.push({ idPersona: this.slotIds[slot]!, score: best });
    }
    hits.sort((a, b) => b.score - a.score);
    return hits.slice(0, k);
  }

  /**
   * Writes the live rows to `file` (through a temporary file and a rename): a header, the ids, each
   * row's person, the int8 matrix and its scales, then the float32 rows; all little-endian.
   */
  saveSnapshot(file: string): void {
    const live: number[] = [];
    const slotIndex = new Map<number, number>();
    const ids: string[] = [];
    for (let r = 0; r < this.rowCount; r++) {
      const slot = this.rowSlot[r]!;
      if (slot < 0) continue;
      live.push(r);
      if (!slotIndex.has(slot)) {
        slotIndex.set(slot, ids.length);
        ids.push(this.slotIds[slot]!);
      }
    }
    const idBytes = Buffer.from(JSON.stringify(ids), 'utf8');
    const rows = live.length;
    const layout = snapshotLayout(this.stride, this.dim, rows, idBytes.length);
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      const header = Buffer.alloc(SNAPSHOT_HEADER);
      header.write(SNAPSHOT_MAGIC, 0, 'latin1');
      header.writeUInt32LE(this.dim, 8);
      header.writeUInt32LE(this.stride, 12);
      header.writeUInt32LE(rows, 16);
      header.writeUInt32LE(ids.length, 20);
      header.writeUInt32LE(idBytes.length, 24);
      writeSync(fd, header, 0, header.length, 0);
      writeSync(fd, idBytes, 0, idBytes.length, layout.ids);
      const person = new Int32Array(rows);
      const scales = new Float32Array(rows);
      const allScales = new Float32Array(this.memory.buffer, this.scalesAt, this.rowCount);
      live.forEach((r, i) => {
        person[i] = slotIndex.get(this.rowSlot[r]!)!;
        scales[i] = allScales[r]!;
      });
      writeSync(fd, new Uint8Array(person.buffer), 0, rows * 4, layout.person);
      writeSync(fd, new Uint8Array(scales.buffer), 0, rows * 4, layout.scales);
      // The int8 matrix and the float rows, in runs of consecutive live rows.
      const u8 = new Uint8Array(this.memory.buffer);
      const chunk = new Float32Array(1024 * this.dim);
      let at = 0;
      while (at < rows) {
        let end = at + 1;
        while (end < rows && live[end] === live[end - 1]! + 1 && end - at < 65536) end++;
        const r0 = live[at]!;
        writeSync(fd, u8, this.rowsAt + r0 * this.stride, (end - at) * this.stride, layout.matrix + at * this.stride);
        const half = this.stride / 2;
        writeSync(fd, u8, this.codesAt + r0 * half, (end - at) * half, layout.codes + at * half);
        at = end;
      }
      for (let i = 0; i < rows; i += 1024) {
        const n = Math.min(1024, rows - i);
        for (let j = 0; j < n; j++) chunk.set(this.vectors.read(live[i + j]!, this.scratch), j * this.dim);
        writeSync(fd, new Uint8Array(chunk.buffer, 0, n * this.dim * 4), 0, n * this.dim * 4, layout.floats + i * this.dim * 4);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  /** Replaces the contents with a snapshot's. With a vector file, the float rows are read in place from the snapshot. */
  loadSnapshot(file: string): void {
    const fd = openSync(file, 'r');
    let keepFd = false;
    try {
      const header = Buffer.alloc(SNAPSHOT_HEADER);
      readSync(fd, header, 0, SNAPSHOT_HEADER, 0);
      if (header.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC) throw new Error(`${file}: no es una instantánea del índice`);
      const dim = header.readUInt32LE(8);
      const stride = header.readUInt32LE(12);
      const rows = header.readUInt32LE(16);
      const persons = header.readUInt32LE(20);
      const idLength = header.readUInt32LE(24);
      if (dim !== this.dim || stride !== this.stride) throw new Error(`${file}: dimensión ${dim}, el índice es de ${this.dim}`);
      const layout = snapshotLayout(stride, dim, rows, idLength);
      const idBytes = Buffer.alloc(idLength);
      readSync(fd, idBytes, 0, idLength, layout.ids);
      const ids = JSON.parse(idBytes.toString('utf8')) as string[];
      if (ids.length !== persons) throw new Error(`${file}: instantánea dañada`);
      const person = new Int32Array(rows);
      readFully(fd, new Uint8Array(person.buffer), layout.person);
      // Reset, then fill the memory straight from the file.
      this.rowCount = 0;
      this.deadRows = 0;
      this.slotOf.clear();
      this.freeSlots = [];
      this.slotIds = [];
      this.slotHead = new Int32Array(0);
      this.slotLast = new Int32Array(0);
      this.slotSamples = new Int32Array(0);
      this.reserve(rows);
      readFully(fd, new Uint8Array(this.memory.buffer, this.scalesAt, rows * 4), layout.scales);
      readFully(fd, new Uint8Array(this.memory.buffer, this.rowsAt, rows * stride), layout.matrix);
      readFully(fd, new Uint8Array(this.memory.buffer, this.codesAt, (rows * stride) / 2), layout.codes);
      for (const id of ids) this.newSlot(id);
      new Float32Array(this.memory.buffer, this.scalesAt, this.capacity).fill(NaN, rows);
      this.rowSlot.set(person);
      this.rowCount = rows;
      this.samples = rows;
      for (let s = 0; s < ids.length; s++) this.slotSamples[s] = 0;
      for (let r = 0; r < rows; r++) this.slotSamples[person[r]!]!++;
      this.relink();
      this.vectors.clear();
      if (this.vectors instanceof FileVectorStore) {
        this.vectors.useBase(fd, layout.floats, rows);
        keepFd = true;
      } else {
        const store = this.vectors as MemoryVectorStore;
        const chunkRows = 4096;
        const chunk = new Float32Array(chunkRows * dim);
        for (let i = 0; i < rows; i += chunkRows) {
          const n = Math.min(chunkRows, rows - i);
          readFully(fd, new Uint8Array(chunk.buffer, 0, n * dim * 4), layout.floats + i * dim * 4);
          store.appendMany(chunk, n);
        }
      }
    } finally {
      if (!keepFd) closeSync(fd);
    }
  }
}

function snapshotLayout(stride: number, dim: number, rows: number, idBytes: number) {
  const ids = SNAPSHOT_HEADER;
  const person = align(ids + idBytes, 64);
  const scales = person + rows * 4;
  const matrix = align(scales + rows * 4, 64);
  const codes = align(matrix + rows * stride, 64);
  const floats = align(codes + (rows * stride) / 2, 64);
  return { ids, person, scales, matrix, codes, floats, end: floats + rows * dim * 4 };
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, Math.min(into.length - done, 1 << 30), position + done);
    if (n <= 0) throw new Error('instantánea del índice truncada');
    done += n;
  }
}
