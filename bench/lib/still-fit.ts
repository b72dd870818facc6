// One still's cues combined into one attack score: a class-balanced logistic regression on
// standardised cues, fitted by Newton's method (a few features, a few hundred stills: no library
// needed), its cues chosen forward by the tuning AUC alone.
import { stillScore, type StillModel } from '../../server/operations/index.js';
import { solve } from './logistic.js';
import { areaUnderCurve } from './metrics.js';

export interface StillSample {
  /** Measured cues by name (NaN: not measurable on this still). */
  cues: Record<string, number>;
  attack: boolean;
}

/** Newton's method on the L2-penalised, class-balanced log-likelihood. */
export { stillScore, type StillModel };

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function fitLogistic(samples: readonly StillSample[], features: readonly string[], l2 = 0.05): StillModel {
  const d = features.length;
  const mean: number[] = [];
  const scale: number[] = [];
  for (const f of features) {
    const v = samples.map((s) => s.cues[f]!).filter(Number.isFinite);
    const m = v.reduce((a, x) => a + x, 0) / Math.max(1, v.length);
    const sd = Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, v.length)) || 1;
    mean.push(m);
    scale.push(sd);
  }
  const rows = samples.map((s) =>
    features.map((f, i) => (Number.isFinite(s.cues[f]) ? (s.cues[f]! - mean[i]!) / scale[i]! : 0)).concat(1),
  );
  const attacks = samples.filter((s) => s.attack).length;
  const weightOf = (s: StillSample) =>
    s.attack ? samples.length / (2 * attacks) : samples.length / (2 * (samples.length - attacks));
  let beta = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    samples.forEach((s, k) => {
      const x = rows[k]!;
      const p = sigmoid(x.reduce((a, v, j) => a + v * beta[j]!, 0));
      const w = weightOf(s);
      const y = s.attack ? 1 : 0;
      for (let i = 0; i <= d; i++) {
        grad[i]! += w * (p - y) * x[i]!;
        for (let j = 0; j <= d; j++) hess[i]![j]! += w * p * (1 - p) * x[i]! * x[j]!;
      }
    });
    for (let i = 0; i < d; i++) {
      grad[i]! += l2 * samples.length * beta[i]!;
      hess[i]![i]! += l2 * samples.length;
    }
    hess[d]![d]! += 1e-9;
    const step = solve(hess, grad);
    if (!step) break;
    beta = beta.map((b, i) => b - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { features: [...features], mean, scale, weights: beta.slice(0, d), bias: beta[d]! };
}

export const aucOf = (scores: readonly { score: number; attack: boolean }[]) =>
  areaUnderCurve(scores.map((s) => ({ score: s.score, positive: s.attack })));

/**
 * Forward selection on the tuning stills: at each step the cue whose addition raises the tuning
 * AUC most, while it raises it by at least `minGain`.
 */
export function selectFeatures(tuning: readonly StillSample[], candidates: readonly string[], maxFeatures = 5, minGain = 0.005) {
  const chosen: string[] = [];
  const steps: { added: string; tuningAuc: number }[] = [];
  let best = 0.5;
  while (chosen.length < maxFeatures) {
    let pick: { f: string; auc: number } | null = null;
    for (const f of candidates) {
      if (chosen.includes(f)) continue;
      const model = fitLogistic(tuning, [...chosen, f]);
      const auc = aucOf(tuning.map((s) => ({ score: stillScore(model, s.cues), attack: s.attack })));
      if (!pick || auc > pick.auc) pick = { f, auc };
    }
    if (!pick || pick.auc < best + minGain) break;
    chosen.push(pick.f);
    best = pick.auc;
    steps.push({ added: pick.f, tuningAuc: pick.auc });
  }
  return { chosen, steps };
}

/** The score at which `bpcer` of the live stills score at or above it (refused). */
export function thresholdAtBpcer(scores: readonly { score: number; attack: boolean }[], bpcer: number): number {
  const live = scores
    .filter((s) => !s.attack)
    .map((s) => s.score)
    .sort((a, b) => b - a);
  const k = Math.floor(bpcer * live.length);
  // Just above the (k+1)-th highest live score: at most k live stills at or above it.
  return live.length ? live[Math.min(k, live.length - 1)]! + 1e-9 : 0.5;
}

/** APCER and BPCER at one threshold (attack when score >= threshold). */
export function ratesAt(scores: readonly { score: number; attack: boolean }[], threshold: number) {
  const attacks = scores.filter((s) => s.attack);
  const live = scores.filter((s) => !s.attack);
  return {
    apcer: attacks.filter((s) => s.score < threshold).length / Math.max(1, attacks.length),
    bpcer: live.filter((s) => s.score >= threshold).length / Math.max(1, live.length),
    attacks: attacks.length,
    live: live.length,
  };
}
