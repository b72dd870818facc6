import type { MajorFace } from '../../engines/index.js';
import { FITTED_SCALES } from './attribute-scales-data.js';

/**
 * The 0-100 scales the station reports for a face's traits and its smile: each a monotone map of
 * its cue, fitted on the own labels' tuning half (bench/labels, `npm run fit:attributes`) so
 * that 50 is where the trait is as likely as not (docs/face-engine.md, "Attribute scales").
 */

const EPS = 1e-3;
export const logit = (p: number): number => {
  const q = Math.min(1 - EPS, Math.max(EPS, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
const linear = (w: readonly number[], x: readonly number[]) => w[0]! + x.reduce((s, xi, i) => s + xi * w[i + 1]!, 0);

export type ScaledTrait = 'glasses' | 'beard' | 'mustache';

/** A cue's probability (0..1) mapped to the probability that the trait is there. */
export function traitProbability(trait: ScaledTrait, cue: number): number {
  return sigmoid(linear(FITTED_SCALES[trait], [logit(cue)]));
}

/** The lips' gap over the mouth's width mapped to the probability that the lips are apart. */
export function mouthOpenProbability(ratio: number): number {
  return sigmoid(linear(FITTED_SCALES.openMouth, [ratio]));
}

/**
 * What the smile is read from: the expression net's happiness. The mesh's mouth (its width, the
 * corners against the lips and the nose) added nothing to it on the own labels (docs/face-engine.md).
 */
export function smileFeatures(face: Pick<MajorFace, 'emotion'>): number[] {
  return [logit(face.emotion?.happy ?? 0)];
}

/** The probability of a visible smile. */
export function smileProbability(face: Pick<MajorFace, 'emotion'>): number {
  return sigmoid(linear(FITTED_SCALES.smile, smileFeatures(face)));
}
