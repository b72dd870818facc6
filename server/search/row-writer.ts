// One row's codes and scales written into the search index's memory: used by the index for its
// own adds, and by the threads that code a start-up rebuild's batches (bulk-code-sink.ts), each
// with its own working space in the same shared memory.
import { rowCoder, type RowCoder } from './wasm-row-coder.js';
import type { WasmMemory, WasmModule } from './wasm-kernel.js';

/** 2-bit levels -3, -1, 1, 3 (code 0..3); the thresholds of the 4-level Lloyd-Max quantiser of a gaussian. */
const T2 = 0.9816;
/** 4-bit codes -7..7 with a step of 0.33 sigma (clipped beyond 2.3 sigma). */
const STEP4 = 0.33;

/** Where the index keeps each row's codes and scales (byte offsets; valid until it grows). */
export interface CodeLayout {
  dim: number;
  /** Padded (rotated) dimension. */
  dpad: number;
  /** 2-bit pairs per row (0: no fast-scan codes). */
  pairs: number;
  fsAt: number;
  codesAt: number;
  scales2At: number;
  scales4At: number;
  errs2At: number;
  /** The rotation's random signs (f64), read by every coder. */
  signsAt: number;
}

/** A coder's working space in the index's memory: one per thread that codes. */
export interface CoderSpace {
  unit: number;
  y: number;
  scratch: number;
  res: number;
}

/** Bytes of one CoderSpace for a padded dimension (the row, its rotation, its levels, the sums). */
export function coderSpaceBytes(dpad: number): number {
  return 4 * dpad + 8 * dpad + 2 * dpad + 64;
}

/** The CoderSpace that starts at `at`. */
export function coderSpaceAt(at: number, dpad: number): CoderSpace {
  return { unit: at, y: at + 4 * dpad, scratch: at + 12 * dpad, res: at + 14 * dpad };
}

/**
 * Where a row's 2-bit codes lie (only kept when the first pass reads them): byte (row % 16) of
 * each pair's 16 bytes in the row's block of 32, the low nibble (shift 0) for rows 0-15 of the
 * block, the high one (shift 4) for rows 16-31. Threads that code rows of one block at once stage
 * it apart (bulk-code-sink.ts).
 */
export function fastScanSlot(layout: CodeLayout, row: number): { at: number; shift: 0 | 4 } {
  return { at: layout.fsAt + (row >> 5) * layout.pairs * 16 + (row & 15), shift: (row & 31) >= 16 ? 4 : 0 };
}

export class RowWriter {
  private readonly coder: RowCoder;
  private bytes = -1;
  private f32: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private f64: Float64Array<ArrayBufferLike> = new Float64Array(0);
  private unitView: Float32Array<ArrayBufferLike> = new Float32Array(0);
  /** The last written row's 4-bit residual bound and 2-bit scale. */
  err4 = 0;
  alpha2 = 0;

  constructor(
    private readonly memory: WasmMemory,
    private readonly space: CoderSpace,
    private readonly dim: number,
    dpad: number,
    /** The coder's compiled module, where this thread has it already (rowCoder). */
    coderModule?: WasmModule,
  ) {
    this.coder = rowCoder(dpad, memory, coderModule);
  }

  /** Views renewed after the memory grows (getting `memory.buffer` is not free). */
  private views(): void {
    const bytes = this.memory.buffer.byteLength;
    if (bytes === this.bytes) return;
    this.f32 = new Float32Array(this.memory.buffer);
    this.f64 = new Float64Array(this.memory.buffer);
    this.unitView = new Float32Array(this.memory.buffer, this.space.unit, this.dim);
    this.bytes = bytes;
  }

  /**
   * Puts a row into the working space, divided by its norm unless it is already a stored (unit)
   * row, and returns its hash (rowHash of quantized-index.ts). The same floats as `normalize` of
   * similarity.ts, so the same scores as EmbeddingIndex.
   */
  load(e: Float32Array, normalise: boolean): number {
    this.views();
    this.f32.set(e, this.space.unit >> 2);
    return this.coder.prepareRow(this.space.unit, this.dim, normalise ? 1 : 0);
  }

  /** The row `load` loaded, normalised. */
  get unit(): Float32Array<ArrayBufferLike> {
    this.views();
    return this.unitView;
  }

  /**
   * Codes the loaded row at `row`. Each code c gets the scale ||y||^2 / (c . y), which makes the
   * estimate q . (scale c) unbiased for probes near the row (the least-squares scale would shrink
   * genuine matches); its residual norm bounds the error (see the docs).
   */
  write(layout: CodeLayout, row: number): void {
    this.views();
    const at = this.space;
    const fs = fastScanSlot(layout, row);
    const d = layout.dpad;
    this.coder.codeRow(
      at.unit,
      layout.signsAt,
      at.y,
      at.scratch,
      layout.codesAt + (row * d) / 2,
      fs.at,
      layout.pairs,
      fs.shift,
      at.res,
      T2,
      STEP4,
    );
    const f64 = this.f64;
    const r = at.res >> 3;
    const ss = f64[r]!;
    const a2 = f64[r + 1]! > 0 ? ss / f64[r + 1]! : 0;
    const a4 = f64[r + 3]! > 0 ? ss / f64[r + 3]! : 0;
    const r2 = Math.sqrt(Math.max(0, a2 * a2 * f64[r + 2]! - ss));
    this.err4 = Math.sqrt(Math.max(0, a4 * a4 * f64[r + 4]! - ss));
    this.alpha2 = a2;
    const f32 = this.f32;
    f32[(layout.scales2At >> 2) + row] = a2;
    f32[(layout.scales4At >> 2) + row] = a4;
    f32[(layout.errs2At >> 2) + row] = r2 / Math.sqrt(d);
  }
}
