import type { ImpostorModel } from './calibration.js';
import { normalize } from './similarity.js';

/**
 * Identification's scores are centred on the gallery: each probe's similarities are lowered by
 * half its similarity to the gallery's mean sample. A probe that carries much of what a
 * population's faces share scores high against everyone; this raises that probe's threshold and
 * nobody else's, and leaves the ranking as it was (docs/face-engine.md, "Centring on the gallery").
 * The half beat none and all on the LFW sets, data the product may use (measured by hand), as on
 * CelebA, which is measured with and never fitted on.
 */
export const CENTRING_SHARE = 0.5;

/**
 * Samples' worth of weight toward no mean at all: a small gallery's mean is mostly its few people,
 * whose own probes it would lower. With 100, three samples of one person lower their own probe's
 * scores by under 0.015 (half of three times their similarity, over 103; the impostor spread is
 * about 0.2), and a gallery of some thousand samples is centred at over nine tenths. Reasoned, not
 * measured: no set here has galleries that small. The calibration follows the weight
 * (centredImpostors), so a gallery centred in part is calibrated for what it takes off.
 */
export const CENTRE_PRIOR_SAMPLES = 100;

/** How much of its mean a gallery of `count` samples takes off: 0 empty, toward 1 as it grows. */
export function centringWeight(count: number, prior = CENTRE_PRIOR_SAMPLES): number {
  return count + prior > 0 ? count / (count + prior) : 1;
}

/**
 * The impostor distribution of scores centred at `weight`: between the plain cosine's (0) and
 * the fully centred one's (1), both fitted by `eval:face --write-calibration`. Its mean moves
 * linearly with the weight; its spread nearly so, over the small difference between the two.
 */
export function centredImpostors(plain: ImpostorModel, centred: ImpostorModel, weight: number): ImpostorModel {
  const w = Math.min(1, Math.max(0, weight));
  return {
    mean: plain.mean + w * (centred.mean - plain.mean),
    std: plain.std + w * (centred.std - plain.std),
    source: centred.source,
  };
}

/** The gallery's mean sample from the sum of its samples' unit vectors, x centringWeight (shrunk toward none while it has few). */
export function galleryCentre(sum: ArrayLike<number>, count: number, prior = CENTRE_PRIOR_SAMPLES): Float32Array {
  const out = new Float32Array(sum.length);
  const weight = count + prior;
  if (weight <= 0) return out;
  for (let i = 0; i < out.length; i++) out[i] = sum[i]! / weight;
  return out;
}

/**
 * What comes off each identification score of `probe` (any norm; a longer vector by its leading
 * part, as a prefix index reads it): CENTRING_SHARE x its unit vector's part along `centre`.
 */
export function centringShift(probe: Float32Array, centre: Float32Array, share = CENTRING_SHARE): number {
  const q = normalize(probe.length > centre.length ? probe.subarray(0, centre.length) : probe);
  let s = 0;
  for (let i = 0; i < centre.length; i++) s += q[i]! * centre[i]!;
  return share * s;
}
