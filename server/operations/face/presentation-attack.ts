import type { SingleFramePolicy } from '../../../common/api/face-schemas.js';
import type { Point } from '../../engines/index.js';
import type { UsableFrame } from './frame-selection.js';
import { STILL_MODEL, STILL_THRESHOLD, STILL_VALIDATION, stillCueValues, stillScore } from './still-judgement.js';

export interface PresentationVerdict {
  /** 0-100: how strongly the capture looks like an attack (photo, screen, mask). */
  attackConfidence: number;
  /** Each cue 0-100, higher is more suspicious; absent when it could not be measured. */
  cues: Record<string, number>;
  /** What the decision could rest on; a single photo proves far less than a sequence. */
  evidence: 'sequence' | 'single-frame';
  /**
   * A single still judged on its combined cues (`singleFrame: 'judge'`): its own operating
   * threshold (0-100) and the share of attacks that point let through on the validation split.
   */
  judgedStill?: { threshold: number; validationApcer: number };
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * Residual of the best affine map between two landmark sets, over the inter-ocular distance.
 * A flat picture moved or tilted in front of the camera maps almost exactly (small residual);
 * a real head turning, blinking or talking does not.
 */
export function affineResidual(a: readonly Point[], b: readonly Point[], iod: number): number {
  const n = Math.min(a.length, b.length);
  if (n < 6 || iod <= 0) return 0;
  // Least squares for [x' y'] = [x y 1] M, via the 3x3 normal equations.
  const ata = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  const atx = [0, 0, 0];
  const aty = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const row = [a[i]![0], a[i]![1], 1];
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) ata[r * 3 + c]! += row[r]! * row[c]!;
      atx[r]! += row[r]! * b[i]![0];
      aty[r]! += row[r]! * b[i]![1];
    }
  }
  const mx = solve3(ata, atx);
  const my = solve3(ata, aty);
  if (!mx || !my) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]![0] * mx[0] + a[i]![1] * mx[1] + mx[2];
    const y = a[i]![0] * my[0] + a[i]![1] * my[1] + my[2];
    sum += Math.hypot(x - b[i]![0], y - b[i]![1]);
  }
  return sum / n / iod;
}

function solve3(m: number[], v: number[]): [number, number, number] | null {
  const [a, b, c, d, e, f, g, h, i] = m as [number, number, number, number, number, number, number, number, number];
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (Math.abs(det) < 1e-9) return null;
  const [x, y, z] = v as [number, number, number];
  return [
    (x * (e * i - f * h) - b * (y * i - f * z) + c * (y * h - e * z)) / det,
    (a * (y * i - f * z) - x * (d * i - f * g) + c * (d * z - y * g)) / det,
    (a * (e * z - y * h) - b * (d * z - y * g) + x * (d * h - e * g)) / det,
  ];
}

/**
 * Presentation attack decision from what a station sees: with a capture sequence, signs of a
 * living face across frames (non-rigid landmark motion, blinks); in every frame, the straight
 * edges of a device or print around the face. A single photo shows neither motion nor blinks.
 */
export function assessPresentation(frames: readonly UsableFrame[]): PresentationVerdict {
  const cues: Record<string, number> = {};
  const models = frames.filter((f) => f.face.real !== null && f.face.live !== null);
  const modelSuspicion = models.length
    ? models.reduce((s, f) => s + (1 - f.face.real!) * 0.5 + (1 - f.face.live!) * 0.5, 0) / models.length
    : 0.5;
  // Reported, not decided on: on the fixtures these models rank replays above live faces.
  cues.modelos = Math.round(modelSuspicion * 100);
  // A device or print frame around the face in most frames (the median ignores one stray line).
  const framing = median(frames.map((f) => f.face.presentation?.bezel ?? 0));
  cues.marco = Math.round(framing * 100);

  if (frames.length < 2) {
    const face = frames[0]?.face;
    if (!face?.still) return { attackConfidence: Math.round(framing * 100), cues, evidence: 'single-frame' };
    // Asked to judge one still: its cues combined into one calibrated attack probability.
    cues.unaImagen = Math.round(stillScore(STILL_MODEL, stillCueValues(face)) * 100);
    return {
      attackConfidence: cues.unaImagen,
      cues,
      evidence: 'single-frame',
      judgedStill: { threshold: Math.round(STILL_THRESHOLD * 100), validationApcer: STILL_VALIDATION.apcer },
    };
  }

  let maxResidual = 0;
  for (let i = 0; i < frames.length; i++) {
    for (let j = i + 1; j < frames.length; j++) {
      const a = frames[i]!.face;
      const b = frames[j]!.face;
      maxResidual = Math.max(maxResidual, affineResidual(a.landmarks68, b.landmarks68, (a.iod + b.iod) / 2));
    }
  }
  // A blink closes both eyes together: the change over time of their mean. Pooling both eyes'
  // values would read the difference between them (a tilted picture narrows one eye) as a blink.
  const opens = frames.map((f) => (f.face.leftEyeOpenness + f.face.rightEyeOpenness) / 2);
  const blinkRange = Math.max(...opens) - Math.min(...opens);
  // Landmark noise on a still picture stays near 1-2 % of the IOD; a living face moves more.
  const rigid = clamp01(1 - (maxResidual - 0.015) / 0.03);
  const noBlink = clamp01(1 - (blinkRange - 0.04) / 0.1);
  cues.rigidez = Math.round(rigid * 100);
  cues.sinParpadeo = Math.round(noBlink * 100);
  // A rigid picture that never blinks, or a face shown inside a device or print: either is an attack.
  // (A video replay moves and blinks like a person: only the framing betrays it.)
  const still = Math.min(rigid, noBlink);
  return { attackConfidence: Math.round(Math.max(framing, still) * 100), cues, evidence: 'sequence' };
}

export type SpoofStatus = 'IS_SPOOF_CHECK_CONFIDENCE' | 'NO_SPOOF_CHECK_CONFIDENCE' | 'TEMPLATE_WITHOUT_VIDEO';

/**
 * The station's answer: an attack seen at or above `threshold` is one, however many images
 * showed it. Below it, a sequence is certified as a live person; a single image only under the
 * 'judge' policy, since nothing in one still (no motion, no blink) tells a printed photo that
 * fills the frame from a person (docs/face-engine.md, presentation attacks). A judged still is
 * never certified with less attack confidence than the share of attacks its operating point let
 * through on validation, and not at all when that share reaches the threshold.
 */
export function spoofDecision(
  verdict: PresentationVerdict,
  threshold: number,
  singleFrame: SingleFramePolicy,
): { status: SpoofStatus; confidence: number } {
  const confidence = verdict.attackConfidence;
  if (confidence >= threshold) return { status: 'IS_SPOOF_CHECK_CONFIDENCE', confidence };
  if (verdict.evidence === 'single-frame' && singleFrame === 'refuse') return { status: 'TEMPLATE_WITHOUT_VIDEO', confidence };
  const floor = verdict.judgedStill ? Math.ceil(verdict.judgedStill.validationApcer * 100) : 0;
  if (floor >= threshold) return { status: 'TEMPLATE_WITHOUT_VIDEO', confidence: Math.max(confidence, floor) };
  return { status: 'NO_SPOOF_CHECK_CONFIDENCE', confidence: Math.max(confidence, floor) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
