import { selectNth } from './scan-shard.js';

/** The indices of the `m` largest of `values` (ties broken by position), in no particular order. */
export function topIndices(values: Float32Array, m: number): Int32Array {
  const n = values.length;
  if (m >= n) return Int32Array.from({ length: n }, (_, i) => i);
  const out = new Int32Array(Math.max(0, m));
  if (m <= 0) return out;
  const thr = selectNth(values.slice(), n - m);
  let ties = m;
  for (let i = 0; i < n; i++) if (values[i]! > thr) ties--;
  let w = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v > thr || (v === thr && ties-- > 0)) out[w++] = i;
  }
  return out;
}

/**
 * The `k`-th largest of `values` (k from 1), or -Infinity when there are fewer than k. In float64:
 * these are exact scores, compared with bounds that must not lose a row to rounding (a few dozen
 * values a search, so a sort).
 */
export function kthLargest(values: Iterable<number>, k: number): number {
  const all = Float64Array.from(values).sort();
  if (k <= 0 || all.length < k) return -Infinity;
  return all[all.length - k]!;
}

/**
 * How many rows the first pass keeps per thread: twice the most that any of the last `window`
 * searches needed. Probes differ: one needing three times what the one before it needed is not
 * rare (at 1M x 512, docs/search-index.md), and a rescan of every row costs far more than a row
 * kept, now that only the rows the bound asks for are scored at 4 bits.
 */
export class FirstPassSizer {
  private readonly needs: number[] = [];

  constructor(
    private readonly floor: number,
    private readonly max: number,
    private readonly window = 16,
    private readonly factor = 2,
  ) {}

  /** Records what a search needed (rows per thread at or above its floor); the next list's size. */
  record(needed: number): number {
    this.needs.push(needed);
    if (this.needs.length > this.window) this.needs.shift();
    return this.size();
  }

  size(): number {
    let most = 0;
    for (const n of this.needs) most = Math.max(most, n);
    return Math.min(this.max, Math.max(this.floor, Math.ceil(this.factor * most) + 32));
  }
}
