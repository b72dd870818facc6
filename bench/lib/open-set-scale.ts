import { falseAcceptProbability, type ImpostorModel } from '../../server/matching/index.js';
import { lowerBound } from './metrics.js';

export interface OpenSetAtScale {
  gallery: number;
  /** Similarity a candidate needs at this gallery size. */
  threshold: number;
  /** Share of strangers for whom some enrolled person passes the threshold. */
  strangers_accepted: number;
  /** Share of enrolled people whose own sample passes and beats every other enrolled person. */
  known_found: number;
  /** Where the per-comparison impostor rate came from: counted pairs, or the fitted tail where too few pass. */
  impostor_rate_from: 'measured' | 'tail-fit';
}

/**
 * Open-set identification extrapolated to a gallery of N people from one dataset's genuine and
 * impostor scores, assuming independent impostor comparisons (ISO/IEC 19795-1's usual model):
 * a stranger is accepted when any of N impostor scores passes, so FPIR = 1 - (1 - q)^N with q the
 * per-comparison pass rate; an enrolled person is found when their genuine score passes and beats
 * N - 1 impostors, which happens with probability F(g)^(N-1), F the impostor CDF. Where fewer than
 * `minCount` impostor pairs pass, q and F come from the normal fitted to the impostor tail.
 */
export function openSetAtScale(
  genuine: readonly number[],
  impostor: readonly number[],
  tail: ImpostorModel,
  gallery: number,
  threshold: number,
  minCount = 20,
): OpenSetAtScale {
  const { exceed, measured } = impostorExceedance(impostor, tail, minCount);
  const q = exceed(threshold);
  const strangers = 1 - Math.pow(1 - q, gallery);
  let found = 0;
  for (const g of genuine) if (g >= threshold) found += Math.pow(1 - exceed(g), gallery - 1);
  return {
    gallery,
    threshold,
    strangers_accepted: strangers,
    known_found: genuine.length ? found / genuine.length : NaN,
    impostor_rate_from: measured(threshold) ? 'measured' : 'tail-fit',
  };
}

/**
 * The threshold at which exactly `fpir` of strangers pass in a gallery of N, read off the measured
 * scores themselves (bisection): what a calibration without error would set. Beside the
 * calibrated threshold it separates what the calibration's error costs from what the descriptor can do.
 */
export function thresholdForStrangers(
  impostor: readonly number[],
  tail: ImpostorModel,
  gallery: number,
  fpir: number,
  minCount = 20,
): number {
  const { exceed, lowest } = impostorExceedance(impostor, tail, minCount);
  let lo = lowest;
  let hi = tail.mean + 40 * tail.std;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (1 - Math.pow(1 - exceed(mid), gallery) > fpir) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Upper-tail probability of one impostor comparison reaching s: counted, or the fitted tail's where fewer than `minCount` pass. */
function impostorExceedance(impostor: readonly number[], tail: ImpostorModel, minCount: number) {
  const sorted = [...impostor].sort((a, b) => a - b);
  const above = (s: number) => sorted.length - lowerBound(sorted, s);
  const measured = (s: number) => above(s) >= minCount;
  const exceed = (s: number) => (measured(s) ? above(s) / sorted.length : falseAcceptProbability(s, tail));
  return { exceed, measured, lowest: sorted[0] ?? tail.mean };
}

/** The similarity at which the station's calibrated confidence reaches `confidence` (bisection). */
export function scoreForConfidence(confidence: number, model: ImpostorModel): number {
  const target = Math.pow(10, -confidence / 12);
  let lo = model.mean;
  let hi = model.mean + 40 * model.std;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (falseAcceptProbability(mid, model) > target) lo = mid;
    else hi = mid;
  }
  return hi;
}
