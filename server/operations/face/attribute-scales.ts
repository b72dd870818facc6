import { expressionGeometry, type MajorFace } from '../../engines/index.js';
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
 * What the smile is read from: the emotion net's happiness and neutrality and the mesh's mouth
 * (its width against the face's, the corners against the lips' centre and the nose).
 */
export function smileFeatures(face: Pick<MajorFace, 'points68' | 'emotion'>): number[] {
  const g = expressionGeometry(face.points68);
  return [logit(face.emotion?.happy ?? 0), logit(face.emotion?.neutral ?? 0), g.mouthWidth, g.cornerLift, g.cornerDepth];
}

/** The probability of a visible smile. */
export function smileProbability(face: Pick<MajorFace, 'points68' | 'emotion'>): number {
  return sigmoid(linear(FITTED_SCALES.smile, smileFeatures(face)));
}
