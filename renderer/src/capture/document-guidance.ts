import type { Box } from './face-guidance.js';

/**
 * Document guidance: whether the card inside the on-screen outline can be captured. Pure, on
 * measures of the outline region of a small grey frame (frame-stats.ts).
 */
export type DocumentGuidanceState = 'ok' | 'no-card' | 'moving' | 'blurry' | 'too-dark' | 'too-bright';

export interface DocumentFrameMetrics {
  brightness: number;
  contrast: number;
  clipped: number;
  /** Laplacian variance inside the outline. */
  sharpness: number;
  /** Mean absolute change from the previous frame, 0..255. */
  motion: number;
}

export interface DocumentGuidanceThresholds {
  /** A bare wall or desk inside the outline has almost no contrast; a printed card has plenty. */
  minContrast: number;
  minBrightness: number;
  maxBrightness: number;
  maxClipped: number;
  minSharpness: number;
  maxMotion: number;
}

export const DEFAULT_DOCUMENT_THRESHOLDS: DocumentGuidanceThresholds = {
  minContrast: 0.06,
  minBrightness: 0.15,
  // A white card under good light saturates much of its area; only a card that is almost all
  // blown out (glare, or a lamp straight above) is refused.
  maxBrightness: 0.95,
  maxClipped: 0.5,
  minSharpness: 60,
  maxMotion: 4,
};

export function documentGuidance(
  m: DocumentFrameMetrics,
  t: DocumentGuidanceThresholds = DEFAULT_DOCUMENT_THRESHOLDS,
): DocumentGuidanceState {
  if (m.brightness < t.minBrightness) return 'too-dark';
  if (m.brightness > t.maxBrightness || m.clipped > t.maxClipped) return 'too-bright';
  if (m.contrast < t.minContrast) return 'no-card';
  if (m.motion > t.maxMotion) return 'moving';
  if (m.sharpness < t.minSharpness) return 'blurry';
  return 'ok';
}

/** A steady card: this many good frames in a row before automatic capture. */
export const DOCUMENT_STEADY_FRAMES = 4;

/**
 * The card outline: ID-1 proportions (85.6 x 54 mm), as large as fits in 80 % of the frame,
 * centred. The overlay draws it and the measures read inside it.
 */
export function cardOutline(width: number, height: number): Box {
  const ratio = 85.6 / 54;
  let w = width * 0.8;
  let h = w / ratio;
  if (h > height * 0.8) {
    h = height * 0.8;
    w = h * ratio;
  }
  return { x: (width - w) / 2, y: (height - h) / 2, width: w, height: h };
}
