// Logistic regression by Newton's method, written here because the fits are a few weights on a
// few hundred labelled faces and no package the project has does it.

/** A labelled example: features and whether the trait is present. */
export interface Example {
  x: readonly number[];
  y: boolean;
}

/**
 * Solves A v = b for a small symmetric positive-definite A (Gaussian elimination with pivoting);
 * null when A is singular.
 */
export function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * Weights [intercept, ...one per feature] maximising the log-likelihood less
 * `penalty` x the squared distance of the feature weights from `prior` (the intercept is free):
 * with few positives the prior holds a weight where the data cannot place it.
 */
export function fitLogistic(examples: readonly Example[], penalty: number, prior?: readonly number[]): number[] {
  // Fitted on standardised features, so that the penalty weighs each feature alike whatever its
  // units, and mapped back to the features' own units.
  const n = examples.length;
  const dims = examples[0]!.x.length;
  const mean = Array.from({ length: dims }, (_, j) => examples.reduce((s, e) => s + e.x[j]!, 0) / n);
  const std = mean.map((m, j) => Math.sqrt(examples.reduce((s, e) => s + (e.x[j]! - m) ** 2, 0) / n) || 1);
  const scaled = examples.map((e) => ({ x: e.x.map((v, j) => (v - mean[j]!) / std[j]!), y: e.y }));
  const w = fitStandardised(
    scaled,
    penalty,
    prior?.map((p, j) => p * std[j]!),
  );
  const weights = w.slice(1).map((wj, j) => wj / std[j]!);
  return [w[0]! - weights.reduce((s, wj, j) => s + wj * mean[j]!, 0), ...weights];
}

function fitStandardised(examples: readonly Example[], penalty: number, prior?: readonly number[]): number[] {
  const k = examples[0]!.x.length + 1;
  const w0 = [0, ...(prior ?? new Array<number>(k - 1).fill(0))];
  let w = [...w0];
  for (let iter = 0; iter < 100; iter++) {
    const grad = new Array<number>(k).fill(0);
    const hess = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    for (const { x, y } of examples) {
      const v = [1, ...x];
      const p = sigmoid(v.reduce((s, xi, i) => s + xi * w[i]!, 0));
      for (let i = 0; i < k; i++) {
        grad[i]! += (Number(y) - p) * v[i]!;
        for (let j = 0; j < k; j++) hess[i]![j]! += p * (1 - p) * v[i]! * v[j]!;
      }
    }
    for (let i = 1; i < k; i++) {
      grad[i]! -= 2 * penalty * (w[i]! - w0[i]!);
      hess[i]![i]! += 2 * penalty;
    }
    hess[0]![0]! += 1e-9;
    const step = solve(hess, grad);
    if (!step) break;
    w = w.map((wi, i) => wi + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

export const predict = (w: readonly number[], x: readonly number[]): number =>
  sigmoid(w[0]! + x.reduce((s, xi, i) => s + xi * w[i + 1]!, 0));
