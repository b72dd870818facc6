/**
 * A fixed random rotation of R^dim into R^dpad (dpad a power of two): random signs, then the
 * normalised Walsh-Hadamard transform. It preserves dot products and spreads any vector's energy
 * evenly over the coordinates, so one per-row quantiser fits every row whatever the embedding
 * model's spectrum. Seeded by a constant: snapshots depend on it.
 */
export class Rotation {
  /** D's diagonal (the row coder applies the same rotation in WebAssembly). */
  readonly signs: Float64Array;
  private readonly norm: number;

  constructor(
    readonly dim: number,
    readonly dpad: number,
  ) {
    if (dpad < dim || (dpad & (dpad - 1)) !== 0) throw new Error(`rotación: ${dpad} no es potencia de dos >= ${dim}`);
    this.signs = new Float64Array(dpad);
    let s = 0x9e3779b9;
    for (let i = 0; i < dpad; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      this.signs[i] = s & 1 ? 1 : -1;
    }
    this.norm = 1 / Math.sqrt(dpad);
  }

  /** out = H D x (x padded with zeros), in place in `out`. */
  apply(x: ArrayLike<number>, out: Float64Array): Float64Array {
    const n = this.dpad;
    for (let i = 0; i < this.dim; i++) out[i] = x[i]! * this.signs[i]!;
    out.fill(0, this.dim, n);
    // Two butterfly stages per pass over the row (the same sums in the same order as one stage at
    // a time, so the same bits), then a last single stage when log2(n) is odd.
    let h = 1;
    for (; h << 1 < n; h <<= 2) {
      for (let i = 0; i < n; i += h << 2) {
        for (let j = i; j < i + h; j++) {
          const a = out[j]!;
          const b = out[j + h]!;
          const c = out[j + 2 * h]!;
          const d = out[j + 3 * h]!;
          const s0 = a + b;
          const d0 = a - b;
          const s1 = c + d;
          const d1 = c - d;
          out[j] = s0 + s1;
          out[j + h] = d0 + d1;
          out[j + 2 * h] = s0 - s1;
          out[j + 3 * h] = d0 - d1;
        }
      }
    }
    for (let j = 0; h < n && j < h; j++) {
      const a = out[j]!;
      const b = out[j + h]!;
      out[j] = a + b;
      out[j + h] = a - b;
    }
    for (let i = 0; i < n; i++) out[i]! *= this.norm;
    return out;
  }
}
