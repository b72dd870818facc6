import { normalize } from '../../matching/index.js';

/**
 * Standard deviation of each descriptor's impostor cosines on the LFW sets (faces-lfw,
 * faces-pairs, faces: 15,156 impostor pairs; `fusion_z_stats` of bench/results/eval-face.json),
 * data the product may use; never CelebA. Each part is weighted by its inverse.
 */
export const FUSION_IMPOSTOR_STD = { mobileFaceNet: 0.1442, resNet: 0.0355 } as const;

/**
 * One unit vector from MobileFaceNet's (unit, 192-d) and face-api's ResNet (128-d, any norm)
 * descriptors: [sqrt(wm) m, sqrt(wr) r / |r|] / sqrt(wm + wr), with w = 1 / impostor std. The
 * cosine of two such vectors is (wm cos_m + wr cos_r) / (wm + wr): an affine map of the sum of the
 * two cosines z-normalised by their impostor spread, the score-level fusion eval:face measured,
 * kept as one vector so the gallery, the templates and the calibration work on it unchanged.
 */
export function fuseDescriptors(mobileFaceNet: Float32Array, resNet: Float32Array): Float32Array {
  const wm = Math.sqrt(1 / FUSION_IMPOSTOR_STD.mobileFaceNet);
  const r = normalize(resNet);
  const wr = Math.sqrt(1 / FUSION_IMPOSTOR_STD.resNet);
  const out = new Float32Array(mobileFaceNet.length + r.length);
  normalize(mobileFaceNet).forEach((v, i) => (out[i] = v * wm));
  r.forEach((v, i) => (out[mobileFaceNet.length + i] = v * wr));
  return normalize(out);
}

/** What identification compares of a fused vector: its leading MobileFaceNet part. */
export const IDENTIFICATION_DIM = 192;

/**
 * Identification (1:N and duplicate search) ranks and decides on the MobileFaceNet part alone.
 * Against a gallery it must keep a stranger's best score under a threshold set for one false match
 * in 100,000 comparisons or fewer, and there the ResNet's impostor tail is heavy (look-alikes score
 * high on it): fused, fewer enrolled people are found at the same share of strangers
 * (docs/face-engine.md). The part is the vector's first 192 values, unit once normalised: the
 * 1:N index holds just that view of each stored vector (QuantizedIndexOptions.prefix), so it
 * stays as small and as fast as for MobileFaceNet alone.
 */
export function identificationView(fused: Float32Array): Float32Array {
  return normalize(fused.subarray(0, IDENTIFICATION_DIM));
}
