import type { ImpostorModel } from '../../matching/calibration.js';

/**
 * Impostor cosine-score distribution of the shipped descriptor (faceapi-resnet128-dlibalign@1),
 * written by `npm run eval:face -- --write-calibration` on faces-lfw+faces-pairs (161 photos,
 * 12293 impostor pairs). CelebA is never used for shipped values. A default:
 * recalibrate on the customer's own people with `npm run eval:face -- --dataset DIR --write-calibration`.
 */
export const IMPOSTOR_MODEL: ImpostorModel = {
  mean: 0.84901,
  std: 0.02398,
  source: 'faces-lfw+faces-pairs',
};
