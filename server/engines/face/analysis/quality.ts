import type { MajorFace } from '../types.js';

export type QualityComponent = 'SHARPNESS' | 'EXPOSURE' | 'POSE' | 'IOD' | 'EYES_CLOSED';

export interface QualityReport {
  /** 0-100. */
  score: number;
  components: Record<QualityComponent, number>;
  /** Components under 0.5: what the operator should fix. */
  failed: QualityComponent[];
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * Face image quality in the spirit of ISO/IEC 29794-5: each component is a 0..1 utility and
 * the score is their weighted geometric mean, so one bad component pulls the whole score down
 * (a sharp, well-lit face turned 60 degrees away is still unusable).
 */
export function assessQuality(
  face: Pick<MajorFace, 'image' | 'yaw' | 'pitch' | 'roll' | 'iod' | 'leftEyeOpenness' | 'rightEyeOpenness'>,
): QualityReport {
  const { brightness, clipped, sharpness } = face.image;
  const components: Record<QualityComponent, number> = {
    // Laplacian variance of the face at a fixed scale: ~3e-4 is a soft webcam frame, 3e-3 a crisp photo.
    SHARPNESS: clamp01((Math.log10(Math.max(sharpness, 1e-6)) + 4) / 1.3),
    EXPOSURE: clamp01(Math.min((brightness - 0.08) / 0.22, (0.95 - brightness) / 0.2)) * clamp01(1 - (clipped - 0.05) / 0.3),
    POSE: clamp01(1 - Math.max(Math.abs(face.yaw) / 50, Math.abs(face.pitch) / 40, Math.abs(face.roll) / 50)),
    // ICAO recommends about 90 px between the eye centres; under 30 px recognition degrades fast.
    IOD: clamp01((face.iod - 20) / 70),
    EYES_CLOSED: clamp01((Math.min(face.leftEyeOpenness, face.rightEyeOpenness) - 0.08) / 0.14),
  };
  const weights: Record<QualityComponent, number> = { SHARPNESS: 1, EXPOSURE: 1, POSE: 1, IOD: 0.6, EYES_CLOSED: 0.6 };
  let logSum = 0;
  let weightSum = 0;
  for (const key of Object.keys(components) as QualityComponent[]) {
    logSum += weights[key] * Math.log(Math.max(components[key], 0.01));
    weightSum += weights[key];
  }
  const score = Math.round(100 * Math.exp(logSum / weightSum));
  const failed = (Object.keys(components) as QualityComponent[]).filter((k) => components[k] < 0.5);
  return { score, components, failed };
}
