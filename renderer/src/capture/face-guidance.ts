/**
 * Face guidance: what one analysed camera frame tells the person to do. Pure functions of the
 * frame's measures, so the rules are unit-tested apart from the camera, the detector and React.
 */

export type FaceGuidanceState =
  | 'ok'
  | 'no-face'
  | 'several-faces'
  | 'too-dark'
  | 'too-bright'
  | 'too-far'
  | 'too-close'
  | 'off-centre'
  | 'turned'
  | 'eyes-closed';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One detected face, in the frame's pixels and degrees. */
export interface FaceObservation {
  box: Box;
  /** Detector confidence 0..1. */
  score: number;
  /** Distance between the eye centres, px. */
  iod: number;
  /** Station convention: yaw > 0 the person turns to their right, pitch > 0 they look up. */
  yaw: number;
  pitch: number;
  roll: number;
  /** Lid gap over eye width (about 0.3 open, under 0.12 shut). */
  leftEyeOpenness: number;
  rightEyeOpenness: number;
}

export interface FaceFrameMetrics {
  width: number;
  height: number;
  /** Largest face first. */
  faces: FaceObservation[];
  /** Mean luma 0..1 over the largest face (the whole frame when there is none). */
  brightness: number;
  /** Share of saturated pixels 0..1 over the same region. */
  clipped: number;
}

export interface FaceGuidanceThresholds {
  minScore: number;
  /** A second face at least this share of the largest face's area makes the frame ambiguous. */
  severalFacesAreaRatio: number;
  minBrightness: number;
  maxBrightness: number;
  maxClipped: number;
  /** The station enrols from 40 px IOD (config matching.enrollMinIod); ask for some margin. */
  minIod: number;
  /** Face box width over frame width beyond which the face is too close (cut off, distorted). */
  maxFaceWidthRatio: number;
  maxFaceHeightRatio: number;
  /** Distance of the face centre from the frame centre, as a share of the frame side. */
  maxCentreOffsetX: number;
  maxCentreOffsetY: number;
  maxYaw: number;
  maxPitch: number;
  maxRoll: number;
  minEyeOpenness: number;
}

export const DEFAULT_FACE_THRESHOLDS: FaceGuidanceThresholds = {
  minScore: 0.5,
  severalFacesAreaRatio: 0.25,
  minBrightness: 0.18,
  maxBrightness: 0.85,
  maxClipped: 0.3,
  minIod: 48,
  maxFaceWidthRatio: 0.7,
  maxFaceHeightRatio: 0.9,
  maxCentreOffsetX: 0.2,
  maxCentreOffsetY: 0.22,
  maxYaw: 20,
  maxPitch: 20,
  maxRoll: 15,
  minEyeOpenness: 0.14,
};

const area = (b: Box): number => Math.max(0, b.width) * Math.max(0, b.height);

/** Faces ordered largest first, dropping weak detections. */
export function confidentFaces(faces: readonly FaceObservation[], minScore: number): FaceObservation[] {
  return faces.filter((f) => f.score >= minScore).sort((a, b) => area(b.box) - area(a.box));
}

/**
 * The one thing to fix first, in the order a person can act on it: find the face, then
 * light, distance, position, pose, and finally eyes.
 */
export function faceGuidance(metrics: FaceFrameMetrics, t: FaceGuidanceThresholds = DEFAULT_FACE_THRESHOLDS): FaceGuidanceState {
  const faces = confidentFaces(metrics.faces, t.minScore);
  const face = faces[0];
  if (!face) return 'no-face';
  const second = faces[1];
  if (second && area(second.box) >= t.severalFacesAreaRatio * area(face.box)) return 'several-faces';
  if (metrics.brightness < t.minBrightness) return 'too-dark';
  if (metrics.brightness > t.maxBrightness || metrics.clipped > t.maxClipped) return 'too-bright';
  if (face.box.width > t.maxFaceWidthRatio * metrics.width || face.box.height > t.maxFaceHeightRatio * metrics.height)
    return 'too-close';
  if (face.iod < t.minIod) return 'too-far';
  const cx = face.box.x + face.box.width / 2;
  const cy = face.box.y + face.box.height / 2;
  if (
    Math.abs(cx - metrics.width / 2) > t.maxCentreOffsetX * metrics.width ||
    Math.abs(cy - metrics.height / 2) > t.maxCentreOffsetY * metrics.height
  )
    return 'off-centre';
  if (Math.abs(face.yaw) > t.maxYaw || Math.abs(face.pitch) > t.maxPitch || Math.abs(face.roll) > t.maxRoll) return 'turned';
  if (Math.min(face.leftEyeOpenness, face.rightEyeOpenness) < t.minEyeOpenness) return 'eyes-closed';
  return 'ok';
}
