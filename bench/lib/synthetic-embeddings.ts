// Synthetic face embeddings for the 1:N benchmarks, deterministic per person: a few shared principal
// directions (the structure every real embedding space has) plus a per-person component, then
// per-sample noise; one person in a hundred is a near-duplicate ("twin") of the previous one, so the
// top of a ranking holds close calls, as real galleries do.
import { EMBEDDING_DIM, fuseDescriptors, IDENTIFICATION_DIM } from '../../server/engines/index.js';

const TABLE_BITS = 16;

/** Standard normal quantiles at the midpoints of 2^16 equal-probability bins: a cheap gaussian. */
const GAUSS = (() => {
  const n = 1 << TABLE_BITS;
  const t = new Float32Array(n);
  for (let i = 0; i < n; i++) t[i] = inverseNormal((i + 0.5) / n);
  return t;
})();

function inverseNormal(p: number): number {
  // Acklam's rational approximation (relative error < 1.2e-9).
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - lo) return -inverseNormal(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** A small fast generator (xorshift32) seeded by a hash of its inputs. */
export class Rng {
  private s: number;
  constructor(...seed: number[]) {
    let h = 0x811c9dc5;
    for (const x of seed) {
      h = Math.imul(h ^ (x >>> 0), 0x01000193) >>> 0;
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    }
    this.s = h || 1;
  }
  u32(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  uniform(): number {
    return this.u32() / 4294967296;
  }
  gauss(): number {
    return GAUSS[this.u32() >>> (32 - TABLE_BITS)]!;
  }
}

function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const k = 1 / (Math.sqrt(s) || 1);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * k;
  return v;
}

/** The id the benches give synthetic person i (sorted as the persons are numbered). */
export const syntheticPersonId = (i: number): string => `P${String(i).padStart(8, '0')}`;

export interface SyntheticOptions {
  dim: number;
  seed?: number;
  /** Shared principal directions, and the share of a person's energy along them. */
  directions?: number;
  sharedWeight?: number;
  /** Norm of a sample's noise relative to the unit person vector (0.6: genuine cosine ~0.75). */
  sampleNoise?: number;
  /** Every `twinEvery`-th person is the previous one plus this much noise. */
  twinEvery?: number;
  twinNoise?: number;
}

export class SyntheticGallery {
  readonly dim: number;
  private readonly seed: number;
  private readonly basis: Float32Array[];
  private readonly weights: number[];
  private readonly sharedWeight: number;
  private readonly sampleNoise: number;
  private readonly twinEvery: number;
  private readonly twinNoise: number;

  constructor(options: SyntheticOptions) {
    this.dim = options.dim;
    this.seed = options.seed ?? 1;
    this.sharedWeight = options.sharedWeight ?? 0.5;
    this.sampleNoise = options.sampleNoise ?? 0.6;
    this.twinEvery = options.twinEvery ?? 100;
    this.twinNoise = options.twinNoise ?? 0.35;
    const r = new Rng(this.seed, 0xba515);
    const k = options.directions ?? 12;
    this.basis = Array.from({ length: k }, () => {
      const v = new Float32Array(this.dim);
      for (let i = 0; i < this.dim; i++) v[i] = r.gauss();
      return normalizeInPlace(v);
    });
    // Decreasing variance along the shared directions, like a PCA spectrum.
    this.weights = this.basis.map((_, j) => 1 / Math.sqrt(j + 1));
  }

  /** The person's unit identity vector (writes into `out`). */
  person(i: number, out: Float32Array = new Float32Array(this.dim)): Float32Array {
    if (this.twinEvery > 0 && i % this.twinEvery === 1) {
      this.own(i - 1, out);
      const r = new Rng(this.seed, i, 0x7);
      const s = this.twinNoise / Math.sqrt(this.dim);
      for (let d = 0; d < this.dim; d++) out[d] = out[d]! + s * r.gauss();
      return normalizeInPlace(out);
    }
    return this.own(i, out);
  }

  private own(i: number, out: Float32Array): Float32Array {
    const r = new Rng(this.seed, i, 0x1);
    const own = Math.sqrt(1 - this.sharedWeight) / Math.sqrt(this.dim);
    for (let d = 0; d < this.dim; d++) out[d] = own * r.gauss();
    let norm = 0;
    for (const w of this.weights) norm += w * w;
    const shared = Math.sqrt(this.sharedWeight / norm);
    this.basis.forEach((u, j) => {
      const c = shared * this.weights[j]! * r.gauss();
      for (let d = 0; d < this.dim; d++) out[d] = out[d]! + c * u[d]!;
    });
    return normalizeInPlace(out);
  }

  /** Sample `s` of person `i`: the identity plus noise, unit length. `s` < 0 are probes, never enrolled. */
  sample(i: number, s: number, identity: Float32Array, out: Float32Array = new Float32Array(this.dim)): Float32Array {
    const r = new Rng(this.seed, i, 0x5a + s);
    const k = this.sampleNoise / Math.sqrt(this.dim);
    for (let d = 0; d < this.dim; d++) out[d] = identity[d]! + k * r.gauss();
    return normalizeInPlace(out);
  }
}

/**
 * Synthetic stored samples as the face engine writes them: a MobileFaceNet-like part and a
 * ResNet-like part, each a synthetic gallery of its own, fused (fused-descriptor.ts). The station's
 * index holds the leading part, which is then a synthetic gallery of its own dimension.
 */
export class SyntheticFusedSamples {
  private readonly leading = new SyntheticGallery({ dim: IDENTIFICATION_DIM });
  private readonly trailing = new SyntheticGallery({ dim: EMBEDDING_DIM - IDENTIFICATION_DIM, seed: 2 });
  private readonly leadingIdentity = new Float32Array(IDENTIFICATION_DIM);
  private readonly trailingIdentity = new Float32Array(EMBEDDING_DIM - IDENTIFICATION_DIM);

  /** Sample `s` of person `i` (negative `s`: fresh samples for probes). */
  sample(i: number, s: number): Float32Array {
    this.leading.person(i, this.leadingIdentity);
    this.trailing.person(i, this.trailingIdentity);
    return fuseDescriptors(this.leading.sample(i, s, this.leadingIdentity), this.trailing.sample(i, s, this.trailingIdentity));
  }
}
