import type { Kernel } from './wasm-kernel.js';

/**
 * The int8 scan of one shard, keeping the `keep` rows of highest approximate score (exactly those,
 * ties aside). The scan worker (scan-worker.ts) imports it too: the caller's thread and the worker
 * run the same code.
 *
 * `mode`: 0 scans int8 rows (scanI8), 1 the 4-bit codes (scanI4), 2 the 2-bit fast-scan blocks
 * (scanFS, `q` being the probe's table), which raises each row's score by `eScale` times its error
 * at `errs`, so that `floor`, the threshold and the scores kept are upper bounds. Scans `block`
 * rows at a time with a rising threshold: the kernel writes (row, score) pairs of the rows at or
 * above it into `out`, starting from `floor` (rows below it are not wanted) or from a guess made
 * on the first block (below); past `3 * keep` candidates the threshold becomes the `keep`-th best
 * score. Writes the result, in no particular order (the caller needs the rows and the lowest score
 * kept, not a ranking), as (row i32, score f32) pairs at `res`; returns the count.
 */
export function scanShard(
  kernel: Pick<Kernel, 'scanI8' | 'scanI4' | 'scanFS'>,
  buffer: ArrayBufferLike,
  q: number,
  rows: number,
  scales: number,
  start: number,
  end: number,
  keep: number,
  out: number,
  res: number,
  block: number,
  mode: number,
  floor: number,
  errs: number,
  eScale: number,
  guessFirst = true,
): number {
  const cap = 4 * keep + block;
  const cRow = new Int32Array(cap);
  const cScore = new Float32Array(cap);
  const outRow = new Int32Array(buffer, out, block * 2);
  const outScore = new Float32Array(buffer, out, block * 2);
  let n = 0;
  let thr = floor;
  const work = new Float32Array(cap);
  const prune = () => {
    work.set(cScore.subarray(0, n));
    // Linear, where sorting was most of the scan's overhead.
    thr = selectNth(work.subarray(0, n), n - keep);
    // Exactly `keep` rows stay: all above the threshold, then as many ties as fit (in one pass:
    // compacting first would overwrite ties not yet seen).
    let ties = keep;
    for (let i = 0; i < n; i++) if (cScore[i]! > thr) ties--;
    let w = 0;
    for (let i = 0; i < n; i++) {
      const s = cScore[i]!;
      if (s > thr || (s === thr && ties-- > 0)) {
        cRow[w] = cRow[i]!;
        cScore[w++] = s;
      }
    }
    n = w;
  };
  const scan = (s: number, e: number) => {
    const m =
      mode === 2
        ? kernel.scanFS(q, rows, scales, s, e, thr, out, errs, eScale)
        : mode === 1
          ? kernel.scanI4(q, rows, scales, s, e, thr, out)
          : kernel.scanI8(q, rows, scales, s, e, thr, out);
    for (let i = 0; i < m; i++) {
      cRow[n] = outRow[2 * i]!;
      cScore[n++] = outScore[2 * i + 1]!;
    }
    if (n > 3 * keep) prune();
  };
  // A first threshold guessed from the shard's first rows: the score that their best share would
  // reach if about 2 x keep rows of the whole shard did. Without it every row is written out until
  // the list first fills, then a large share of the next ones (at 100k rows, or at 192-d where the
  // lists are long, that was most of the scan's cost). Rows after the sample below the guess are
  // skipped unproven, so the guess stands only if `keep` rows reached it; else the shard is
  // scanned again without one.
  let guess = floor;
  let from = start;
  const sample = Math.min(block, end - start);
  const expected = Math.floor((2 * keep * sample) / (end - start));
  if (guessFirst && sample < end - start && expected >= 8) {
    scan(start, start + sample);
    from = start + sample;
    if (n > expected) {
      work.set(cScore.subarray(0, n));
      guess = Math.max(thr, selectNth(work.subarray(0, n), n - expected));
      thr = guess;
    }
  }
  for (let s = from; s < end; s += block) scan(s, Math.min(end, s + block));
  if (n > keep) prune();
  if (guess > floor) {
    let low = Infinity;
    for (let i = 0; i < n; i++) low = Math.min(low, cScore[i]!);
    if (n < keep || low < guess)
      return scanShard(kernel, buffer, q, rows, scales, start, end, keep, out, res, block, mode, floor, errs, eScale, false);
  }
  const resRow = new Int32Array(buffer, res, n * 2);
  const resScore = new Float32Array(buffer, res, n * 2);
  for (let i = 0; i < n; i++) {
    resRow[2 * i] = cRow[i]!;
    resScore[2 * i + 1] = cScore[i]!;
  }
  return n;
}

/**
 * The value that would sit at index `k` if `a` were sorted ascending, with every value before
 * index k at most it (Hoare's selection, in place). `a` holds no NaN. Self-contained too: the
 * scan worker gets its source beside scanShard's.
 */
export function selectNth(a: Float32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}
