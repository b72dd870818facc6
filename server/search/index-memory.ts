// The search index's WebAssembly memory: one shared memory that the kernels of every thread read.
// Fixed areas first (the probe and its table, the kernels' output, the rotation's signs, the
// coders' working spaces), then the rows' regions, which move up when the memory grows:
//   [fixed areas][fast-scan blocks][4-bit codes][fast-scan scales][4-bit scales][fast-scan errors]
// The fast-scan blocks stay in place. Also asks for huge pages over it (huge-pages.ts).
import { bulkSpaceBytes } from './bulk-code-sink.js';
import { adviseHugePages, hugePagesState } from './huge-pages.js';
import { type CodeLayout, type CoderSpace, coderSpaceAt, coderSpaceBytes, fastScanSlot } from './row-writer.js';
import { wasm, WASM_MAX_PAGES, WASM_PAGE, type WasmMemory } from './wasm-kernel.js';

/** Rows per kernel call, a multiple of 32. */
export const BLOCK = 4096;
/** The longest shortlist per thread. */
export const MAX_KEEP = 65536;
/** Threads that scan: the caller's and one worker. */
export const THREADS_MAX = 2;
/** Threads that may code a bulk load at once, each in its own working space. */
export const BULK_CODERS_MAX = 4;

export function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

export class IndexMemory {
  readonly memory: WasmMemory;
  /** The probe as int16 (2 x dpad bytes), for the 4-bit scans. */
  readonly probeAt = 0;
  /** The probe's fast-scan table (16 bytes per pair). */
  readonly lutAt: number;
  /** Each thread's kernel output (BLOCK (row, score) pairs). */
  readonly outAt: number;
  /** Each thread's first-pass result (MAX_KEEP pairs); the second pass reuses it. */
  readonly resAt: number;
  /** The rotation's random signs (f64), read by every coder. */
  readonly signsAt: number;
  /** The index's own coder's working space. */
  readonly coderSpace: CoderSpace;
  /** Working spaces of the threads that code a bulk load (bulk-code-sink.ts). */
  readonly bulkSpacesAt: number;
  /** The fast-scan blocks: the first of the rows' regions, which never moves. */
  readonly fsAt: number;
  codesAt = 0;
  scales2At = 0;
  scales4At = 0;
  /** Each row's 2-bit error (residual norm / sqrt(dpad)), f32, for the fast scan's per-row bound. */
  errs2At = 0;
  /** Rows the regions hold. */
  capacity = 0;
  /** Where the codes and scales lie now: renewed by `place` (they move when the memory grows). */
  layout!: CodeLayout;
  private hugePagesAdvised = -1;

  constructor(
    readonly dim: number,
    readonly dpad: number,
    /** 2-bit pairs per row (0: the first pass reads the 4-bit rows, no fast-scan codes kept). */
    readonly pairs: number,
    private readonly hugePagesOn: boolean,
  ) {
    this.lutAt = align(2 * dpad, 64);
    this.outAt = align(this.lutAt + (dpad / 2) * 16, 64);
    this.resAt = this.outAt + THREADS_MAX * BLOCK * 8;
    this.signsAt = this.resAt + THREADS_MAX * MAX_KEEP * 8;
    const spaceAt = this.signsAt + 8 * dpad;
    this.coderSpace = coderSpaceAt(spaceAt, dpad);
    this.bulkSpacesAt = spaceAt + coderSpaceBytes(dpad);
    this.fsAt = align(this.bulkSpacesAt + BULK_CODERS_MAX * bulkSpaceBytes(dpad), WASM_PAGE);
    this.memory = new wasm.Memory({ initial: this.fsAt / WASM_PAGE, maximum: WASM_MAX_PAGES, shared: true });
    this.adviseHugePages();
  }

  /** Bytes of the fast-scan and 4-bit codes and their scales: what the index holds per row. */
  get codeBytesPerRow(): number {
    return this.pairs / 2 + this.dpad / 2 + 12;
  }

  /** The most rows the codes may take in a 32-bit memory. */
  get maxRows(): number {
    return Math.floor((WASM_MAX_PAGES * WASM_PAGE - this.fsAt) / this.codeBytesPerRow);
  }

  /**
   * Regions for `capacity` rows (a multiple of 32, above the current one), the first `rowCount`
   * rows' codes and scales moved there; rows past them score NaN.
   */
  place(capacity: number, rowCount: number): void {
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
      u8.copyWithin(errs2At, this.errs2At, this.errs2At + rowCount * 4);
      u8.copyWithin(scales4At, this.scales4At, this.scales4At + rowCount * 4);
      u8.copyWithin(scales2At, this.scales2At, this.scales2At + rowCount * 4);
      u8.copyWithin(codesAt, this.codesAt, this.codesAt + (rowCount * this.dpad) / 2);
    }
    this.codesAt = codesAt;
    this.scales2At = scales2At;
    this.scales4At = scales4At;
    this.errs2At = errs2At;
    this.capacity = capacity;
    this.layout = {
      dim: this.dim,
      dpad: this.dpad,
      pairs: this.pairs,
      fsAt: this.fsAt,
      codesAt,
      scales2At,
      scales4At,
      errs2At,
      signsAt: this.signsAt,
    };
    // Rows past the end score NaN: the kernels scan whole groups, possibly past the last row.
    this.tombstoneRange(rowCount, capacity);
  }

  /** Scales NaN for rows from..to-1: NaN >= threshold is false, so no kernel ever keeps them. */
  tombstoneRange(from: number, to: number): void {
    const { f32 } = this.views();
    f32.fill(NaN, (this.scales2At >> 2) + from, (this.scales2At >> 2) + to);
    f32.fill(NaN, (this.scales4At >> 2) + from, (this.scales4At >> 2) + to);
  }

  /**
   * A removed row: a tombstone, and nothing of it left in the codes (its 4-bit row zeroed, its
   * fast-scan nibbles cleared: the last block is saved whole, stale slots included).
   */
  erase(row: number): void {
    const { u8, f32 } = this.views();
    f32[(this.scales2At >> 2) + row] = NaN;
    f32[(this.scales4At >> 2) + row] = NaN;
    const d = this.dpad;
    u8.fill(0, this.codesAt + (row * d) / 2, this.codesAt + ((row + 1) * d) / 2);
    const fs = fastScanSlot(this.layout, row);
    for (let g = 0, at = fs.at; g < this.pairs; g++, at += 16) u8[at] = u8[at]! & (0xf0 >> fs.shift);
  }

  private viewBytes = -1;
  private u8View: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private f32View: Float32Array<ArrayBufferLike> = new Float32Array(0);

  /** Views over the whole memory, renewed after it grows (getting `memory.buffer` is not free). */
  views(): { u8: Uint8Array<ArrayBufferLike>; f32: Float32Array<ArrayBufferLike> } {
    const bytes = this.memory.buffer.byteLength;
    if (bytes !== this.viewBytes) {
      this.u8View = new Uint8Array(this.memory.buffer);
      this.f32View = new Float32Array(this.memory.buffer);
      this.viewBytes = bytes;
    }
    return { u8: this.u8View, f32: this.f32View };
  }

  // Turned off, the advice is against huge pages: where they are `always`, false alone would not keep them off.
  private adviseHugePages(): void {
    this.hugePagesAdvised = Math.max(this.hugePagesAdvised, adviseHugePages(this.memory, this.hugePagesOn));
  }

  /** Whether the codes are on huge pages: `advised`, `always (...)` or `no (why)` (huge-pages.ts). */
  get hugePages(): string {
    return hugePagesState(this.hugePagesOn, this.hugePagesAdvised);
  }
}
