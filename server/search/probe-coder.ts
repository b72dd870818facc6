// A probe coded for the kernels, in the index's memory: rotated as the rows are, as the int16
// vector of the 4-bit scans and as the int8 table of the 2-bit fast scan.
import type { IndexMemory } from './index-memory.js';
import type { Rotation } from './rotation.js';

export class ProbeCoder {
  private readonly qrot: Float64Array;
  private readonly qi16: Int16Array;
  private readonly lut: Int8Array;

  constructor(
    private readonly rotation: Rotation,
    private readonly memory: IndexMemory,
  ) {
    this.qrot = new Float64Array(memory.dpad);
    this.qi16 = new Int16Array(memory.dpad);
    this.lut = new Int8Array(memory.pairs * 16);
  }

  /** Writes unit probe `q` at the memory's probe and table areas; their scales (units per score unit). */
  code(q: Float32Array): { s16: number; sLut: number } {
    const y = this.qrot;
    this.rotation.apply(q, y);
    const d = this.memory.dpad;
    const pairs = this.memory.pairs;
    let max = 0;
    for (let i = 0; i < d; i++) max = Math.max(max, Math.abs(y[i]!));
    const s16 = max > 0 ? 16383 / max : 0;
    for (let i = 0; i < d; i++) this.qi16[i] = Math.round(y[i]! * s16);
    const buffer = this.memory.memory.buffer;
    new Int16Array(buffer, this.memory.probeAt, d).set(this.qi16);
    // Entry c of pair g: y[2g] * level(c & 3) + y[2g+1] * level(c >> 2), level(x) = 2x - 3; scaled
    // so that four entries add up exactly in int8 (the kernel's groups; see scan-kernel.wat's scanFS).
    let top = 0;
    for (let g = 0; g < pairs; g++) top = Math.max(top, 3 * (Math.abs(y[2 * g]!) + Math.abs(y[2 * g + 1]!)));
    const sLut = top > 0 ? 31 / top : 0;
    const lut = this.lut;
    for (let g = 0; g < pairs; g++) {
      const a = y[2 * g]! * sLut;
      const b = y[2 * g + 1]! * sLut;
      for (let c = 0; c < 16; c++) lut[16 * g + c] = Math.round(a * (2 * (c & 3) - 3) + b * (2 * (c >> 2) - 3));
    }
    new Int8Array(buffer, this.memory.lutAt, pairs * 16).set(lut);
    return { s16, sLut };
  }
}
