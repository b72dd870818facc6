// The first pass of a search: every row's codes scanned (2-bit fast scan or 4-bit rows), the best
// `keep` rows per thread kept, on the caller's thread and the scan worker's halves from
// `parallelFrom` rows (scan-shard.ts for each half).
import type { IndexParts } from './index-parts.js';
import { align, BLOCK, MAX_KEEP } from './index-memory.js';
import { scanShard } from './scan-shard.js';
import type { SearchTrace } from './search-trace.js';

/** The first pass's rows and their bounds, the score below which rows were left out, and whether a list was full. */
export interface FirstPass {
  rows: Int32Array;
  /** Each row's first-pass score (the pass's units: an upper bound over 2-bit codes). */
  scores: Float32Array;
  cutoff: number;
  full: boolean;
}

/**
 * The best `keep` rows per thread at or above `floor`; `eScale` raises each fast-scan score by
 * that times its row's error (margin x table units).
 */
export function firstPassRows(
  parts: IndexParts,
  keep: number,
  floor: number,
  eScale: number,
  parallelFrom: number,
  trace: SearchTrace,
): FirstPass {
  const m = parts.memory;
  const buffer = m.memory.buffer;
  const rowCount = parts.rows.rowCount;
  const result: { res: number; count: number }[] = [];
  let cutoff = floor;
  let full = false;
  const collect = (res: number, count: number) => {
    result.push({ res, count });
    if (count >= keep) {
      full = true;
      const s = new Float32Array(buffer, res, count * 2);
      let low = Infinity;
      for (let i = 1; i < 2 * count; i += 2) low = Math.min(low, s[i]!);
      cutoff = Math.max(cutoff, low);
    }
  };
  const mode = parts.firstMode;
  const [q, matrix, scales] = mode === 1 ? [m.probeAt, m.codesAt, m.scales4At] : [m.lutAt, m.fsAt, m.scales2At];
  const errs = m.errs2At;
  const scan = (start: number, end: number, out: number, res: number) =>
    scanShard(parts.scanKernel, buffer, q, matrix, scales, start, end, keep, out, res, BLOCK, mode, floor, errs, eScale);
  const worker = parts.worker;
  const end = align(rowCount, 32);
  if (worker && rowCount >= parallelFrom) {
    const half = Math.floor(rowCount / 2 / 32) * 32;
    const res1 = m.resAt + MAX_KEEP * 8;
    const out1 = m.outAt + BLOCK * 8;
    const gen = worker.scan({
      q,
      rows: matrix,
      scales,
      start: half,
      end,
      keep,
      out: out1,
      res: res1,
      block: BLOCK,
      mode,
      floor,
      errs,
      eScale,
    });
    const t0 = performance.now();
    collect(m.resAt, scan(0, half, m.outAt, m.resAt));
    const t1 = performance.now();
    const finished = worker.finished(gen);
    trace.firstPassOwnMs += t1 - t0;
    trace.firstPassWaitMs += performance.now() - t1;
    if (finished) {
      trace.firstPassWorkerMs += worker.taskMs;
      collect(res1, worker.count);
    }
    // The worker is stuck or gone: scan its shard here and carry on alone.
    else collect(res1, scan(half, end, m.outAt, res1));
  } else {
    collect(m.resAt, scan(0, end, m.outAt, m.resAt));
  }
  // Copied out: the second pass reuses this area.
  const total = result.reduce((a, p) => a + p.count, 0);
  const rows = new Int32Array(total);
  const scores = new Float32Array(total);
  let w = 0;
  for (const { res, count } of result) {
    const r = new Int32Array(buffer, res, count * 2);
    const sc = new Float32Array(buffer, res, count * 2);
    for (let i = 0; i < count; i++, w++) {
      rows[w] = r[2 * i]!;
      scores[w] = sc[2 * i + 1]!;
    }
  }
  return { rows, scores, cutoff, full };
}
