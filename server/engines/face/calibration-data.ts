import type { ImpostorModel } from '../../matching/calibration.js';

/**
 * Impostor cosine-score distribution of the shipped descriptor (mobilefacenet192-arcface-2landmarks@1),
 * written by `npm run eval:face -- --write-calibration` on faces-lfw+faces-pairs+faces (178 photos,
 * 15156 impostor pairs). CelebA is never used for shipped values. A default:
 * recalibrate on the customer's own people with `npm run eval:face -- --dataset DIR --write-calibration`.
 */
export const IMPOSTOR_MODEL: ImpostorModel = {
  mean: -0.13778,
  std: 0.21216,
  source: 'faces-lfw+faces-pairs+faces',
};
