import type { ImpostorModel } from '../../matching/index.js';

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

/** The same for identification's cosine (mobilefacenet192-arcface-2landmarks-flip, the fused vector's MobileFaceNet part). */
export const IDENTIFICATION_IMPOSTOR_MODEL: ImpostorModel = {
  mean: -0.10739,
  std: 0.19781,
  source: 'faces-lfw+faces-pairs+faces',
};

/**
 * The same cosine centred in full on the gallery's mean sample (matching/gallery-centre.ts), here
 * the set's own: a gallery centred in part is calibrated between the two.
 */
export const IDENTIFICATION_CENTRED_IMPOSTOR_MODEL: ImpostorModel = {
  mean: -0.11746,
  std: 0.18618,
  source: 'faces-lfw+faces-pairs+faces',
};
