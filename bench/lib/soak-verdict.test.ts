import { describe, expect, it } from 'vitest';
import { soakVerdict, type SoakRow } from './soak-verdict.js';

const row = (rps: number, rss: number, heap = 30, errors = 0): SoakRow => ({
  rps,
  p99_ms: 900,
  errors,
  rss_mb: rss,
  heap_mb: heap,
});

describe('soak verdict', () => {
  it('calls a slow first minute and an allocator that settles early steady', () => {
    const rows = [5.3, 5.9, 6.2, 5.6, 5.7, 5.9, 6.0, 5.6, 5.9, 6.2].map((rps, i) =>
      row(rps, [1192, 1206, 1205, 1230, 1218, 1237, 1230, 1243, 1233, 1228][i]!),
    );
    expect(soakVerdict(rows)).toMatchObject({ steady: true, rssGrowthMb: 13 });
  });

  it('flags memory that keeps growing, falling throughput and any error', () => {
    const leak = Array.from({ length: 10 }, (_, i) => row(6, 1200 + 15 * i));
    expect(soakVerdict(leak)).toMatchObject({ steady: false, rssGrowthMb: 75 });
    const slowing = Array.from({ length: 10 }, (_, i) => row(6 - 0.3 * i, 1200));
    expect(soakVerdict(slowing).steady).toBe(false);
    expect(soakVerdict([row(6, 1200), row(6, 1200, 30, 1)]).steady).toBe(false);
  });
});
