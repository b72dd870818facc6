import type { ImpostorModel } from '../../matching/calibration.js';

/**
 * Impostor cosine-score distribution of the shipped descriptor (fused-mobilefacenet192x4-resnet128@1),
 * written by `npm run eval:face -- --write-calibration` on faces-lfw+faces-pairs+faces (178 photos,
 * 15153 impostor pairs). CelebA is never used for shipped values. A default:
 * recalibrate on the customer's own people with `npm run eval:face -- --dataset DIR --write-calibration`.
 */
export const IMPOSTOR_MODEL: ImpostorModel = {
  mean: 0.63905,
  std: 0.06394,
  source: 'faces-lfw+faces-pairs+faces',
};

/** The same for identification's similarity (mobilefacenet192-arcface-2landmarks-flip, the fused vector's MobileFaceNet part). */
export const IDENTIFICATION_IMPOSTOR_MODEL: ImpostorModel = {
  mean: -0.10739,
  std: 0.19781,
  source: 'faces-lfw+faces-pairs+faces',
};
