export interface ScoredPair {
  score: number;
  genuine: boolean;
}

/** Every unordered pair of `items` that `include` keeps, scored, genuine when both are of one identity. */
export function allPairs<T extends { identity: string }>(
  items: readonly T[],
  score: (a: T, b: T) => number,
  include: (a: T, b: T) => boolean = () => true,
): ScoredPair[] {
  const pairs: ScoredPair[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      if (include(items[i]!, items[j]!))
        pairs.push({ score: score(items[i]!, items[j]!), genuine: items[i]!.identity === items[j]!.identity });
    }
  }
  return pairs;
}

/** Equal error rate and true-accept rates at fixed false-accept rates, from all pairs. */
export function verificationMetrics(pairs: readonly ScoredPair[]) {
  const genuine = pairs
    .filter((p) => p.genuine)
    .map((p) => p.score)
    .sort((a, b) => a - b);
  const impostor = pairs
    .filter((p) => !p.genuine)
    .map((p) => p.score)
    .sort((a, b) => a - b);
  const farAt = (t: number) => 1 - lowerBound(impostor, t) / impostor.length;
  const frrAt = (t: number) => lowerBound(genuine, t) / genuine.length;
  let eer = 1;
  let eerThreshold = -Infinity;
  let best = Infinity;
  for (const t of [...genuine, ...impostor]) {
    const far = farAt(t);
    const frr = frrAt(t);
    if (Math.abs(far - frr) < best) {
      best = Math.abs(far - frr);
      eer = (far + frr) / 2;
      eerThreshold = t;
    }
  }
  const tarAt = (far: number) => {
    // The smallest threshold whose false-accept rate is at most `far`.
    const k = Math.ceil(impostor.length * (1 - far));
    const threshold = k >= impostor.length ? Infinity : impostor[k]! + 1e-12;
    return { threshold, tar: 1 - frrAt(threshold) };
  };
  const mean = impostor.reduce((s, x) => s + x, 0) / impostor.length;
  const std = Math.sqrt(impostor.reduce((s, x) => s + (x - mean) ** 2, 0) / impostor.length);
  // The upper tail is what false accepts come from: fit the normal to the 90th and 99th
  // percentiles rather than to the whole distribution, whose bulk is not normal.
  // With 10,000 impostors or more the fit moves up to the 99th and 99.9th: MobileFaceNet's tail is
  // heavier than a normal through the 90th and 99th, which promised FMR 1e-3 and measured 2e-3.
  const q = (p: number) => impostor[Math.min(impostor.length - 1, Math.floor(p * impostor.length))]!;
  const [lo, hi, zLo, zHi] = impostor.length >= 10_000 ? [0.99, 0.999, 2.3263, 3.0902] : [0.9, 0.99, 1.2816, 2.3263];
  const tailStd = (q(hi) - q(lo)) / (zHi - zLo);
  const tailMean = q(lo) - zLo * tailStd;
  return {
    tailMean,
    tailStd,
    genuine: genuine.length,
    impostor: impostor.length,
    eer,
    /** The score at which the EER was read: pairs under it are rejected. */
    eerThreshold,
    tar_at_far_1e2: tarAt(1e-2),
    tar_at_far_1e3: tarAt(1e-3),
    impostorMean: mean,
    impostorStd: std,
    genuineMean: genuine.reduce((s, x) => s + x, 0) / genuine.length,
  };
}

/** Index of the first element not below `value` in an ascending array. */
export function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function areaUnderCurve(scores: readonly { score: number; positive: boolean }[]): number {
  const pos = scores.filter((s) => s.positive).map((s) => s.score);
  const neg = scores.filter((s) => !s.positive).map((s) => s.score);
  if (!pos.length || !neg.length) return NaN;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export function printTable(rows: Record<string, unknown>[]): void {
  if (!rows.length) return;
  const keys = Object.keys(rows[0]!);
  const cell = (v: unknown) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v));
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => cell(r[k]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(keys));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(keys.map((k) => cell(r[k]))));
}
