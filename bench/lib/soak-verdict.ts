import { median } from './metrics.js';

export interface SoakRow {
  rps: number;
  p99_ms: number;
  errors: number;
  rss_mb: number;
  heap_mb: number;
}

export interface SoakVerdict {
  steady: boolean;
  /** Median throughput of the second half over the first's, minus one. */
  drift: number;
  /** Peak RSS of the second half minus the first's: still growing, not settling. */
  rssGrowthMb: number;
  heapGrowthMb: number;
  errors: number;
  text: string;
}

/**
 * Steady or not, from the soak's rows. Halves, not the first and last rows: one minute's
 * throughput varies by about 5 % on this machine, and an allocator that settles in the first
 * minutes is not a leak; a leak keeps growing in the second half.
 */
export function soakVerdict(rows: readonly SoakRow[]): SoakVerdict {
  const half = Math.max(1, rows.length >> 1);
  const early = rows.slice(0, half);
  const late = rows.length > 1 ? rows.slice(-half) : rows;
  const drift = median(late.map((r) => r.rps)) / median(early.map((r) => r.rps)) - 1;
  const peak = (rs: readonly SoakRow[], key: 'rss_mb' | 'heap_mb') => Math.max(...rs.map((r) => r[key]));
  const rssGrowthMb = Math.round((peak(late, 'rss_mb') - peak(early, 'rss_mb')) * 10) / 10;
  const heapGrowthMb = Math.round((peak(late, 'heap_mb') - peak(early, 'heap_mb')) * 10) / 10;
  const errors = rows.reduce((s, r) => s + r.errors, 0);
  const p99s = rows.map((r) => r.p99_ms);
  const steady = Math.abs(drift) <= 0.1 && rssGrowthMb <= 32 && heapGrowthMb <= 16 && errors === 0;
  const text =
    `${steady ? 'STEADY' : 'CHECK'}: throughput ${median(early.map((r) => r.rps))} -> ${median(late.map((r) => r.rps))} rps ` +
    `(median of each half, ${(drift * 100).toFixed(1)}%), p99 ${Math.min(...p99s)}..${Math.max(...p99s)} ms, ` +
    `RSS ${rows[0]!.rss_mb} -> ${rows.at(-1)!.rss_mb} MB (peak of the second half ${rssGrowthMb >= 0 ? '+' : ''}${rssGrowthMb} over the first's), ` +
    `heap after GC ${heapGrowthMb >= 0 ? '+' : ''}${heapGrowthMb} MB, ${errors} errors ` +
    `(steady = |drift| <= 10%, RSS and heap peaks of the second half at most 32 and 16 MB above the first's, no errors)`;
  return { steady, drift, rssGrowthMb, heapGrowthMb, errors, text };
}
