import type { Box, DetectedFace } from '../types.js';
import { area } from './geometry.js';

/** A second face at least this wide, relative to the largest, is a rival rather than a bystander. */
export const RIVAL_WIDTH_RATIO = 0.75;

/**
 * The detector confidence at which a detection is surely a face: the vendor's `minConfidence`
 * default (80). Human's mesh scores real faces facing the camera at 0.94-1, and boxes hands,
 * printed text, hair, half faces and faces it can barely see at 0.2-0.87 (docs/face-engine.md,
 * "Which detections are faces").
 */
export const DEFAULT_MIN_FACE_SCORE = 0.8;

/** Share of a sure face's box that a doubted box must cover to be taken for the same head. */
const SAME_HEAD_COVER = 0.5;

/**
 * Indices of the detections an operation chooses its face among: all but the doubted boxes
 * (under `minScore`) drawn around a face the detector is sure of. Such a box is the same head
 * boxed twice, larger than the face (a box over a singer's hair, face and microphone), and
 * would otherwise be described instead of the face or make the frame ambiguous. A doubted box
 * apart from the sure faces still counts: it may be the person being enrolled, whose face the
 * detector doubts (sunglasses, a hand), and a sure face behind them must not be taken instead.
 */
export function faceCandidates(faces: readonly DetectedFace[], minScore = DEFAULT_MIN_FACE_SCORE): number[] {
  const sure = faces.filter((f) => f.score >= minScore);
  return faces.flatMap((f, i) => (f.score >= minScore || !sure.some((s) => aroundFace(f.box, s.box)) ? [i] : []));
}

/** Whether `outer` holds the centre of `face` and at least half of its box. */
function aroundFace(outer: Box, face: Box): boolean {
  const cx = face.x + face.width / 2;
  const cy = face.y + face.height / 2;
  if (cx < outer.x || cx > outer.x + outer.width || cy < outer.y || cy > outer.y + outer.height) return false;
  const w = Math.min(outer.x + outer.width, face.x + face.width) - Math.max(outer.x, face.x);
  const h = Math.min(outer.y + outer.height, face.y + face.height) - Math.max(outer.y, face.y);
  return w > 0 && h > 0 && w * h >= SAME_HEAD_COVER * area(face);
}

export type MajorFaceDecision =
  | { kind: 'none' }
  | { kind: 'single'; index: number }
  | { kind: 'dominant'; index: number; others: number }
  | { kind: 'ambiguous'; count: number };

/**
 * Picks the face an operation works on: the largest, weighted towards the frame's centre.
 * A bystander clearly smaller in the background never blocks the operation; two faces of
 * similar size do, because the station cannot know whom to enroll.
 */
export function chooseMajorFace(
  faces: readonly DetectedFace[],
  frame: { width: number; height: number },
  onlyMajor: boolean,
  minScore = DEFAULT_MIN_FACE_SCORE,
): MajorFaceDecision {
  if (faces.length === 0) return { kind: 'none' };
  if (faces.length === 1) return { kind: 'single', index: 0 };
  const candidates = faceCandidates(faces, minScore);
  if (candidates.length === 1) return { kind: 'dominant', index: candidates[0]!, others: faces.length - 1 };
  if (!onlyMajor) return { kind: 'ambiguous', count: candidates.length };
  const ranked = candidates
    .map((index) => {
      const { box } = faces[index]!;
      return { index, weight: area(box) * centrality(box, frame), width: box.width };
    })
    .sort((a, b) => b.weight - a.weight);
  const [first, second] = ranked as [(typeof ranked)[number], (typeof ranked)[number]];
  if (second.width >= first.width * RIVAL_WIDTH_RATIO) return { kind: 'ambiguous', count: candidates.length };
  return { kind: 'dominant', index: first.index, others: faces.length - 1 };
}

/** The largest of the candidate faces (evaluation and the DNI portrait, where the frame holds one person). */
export function largestFace(faces: readonly DetectedFace[], minScore = DEFAULT_MIN_FACE_SCORE): number | null {
  let best: number | null = null;
  for (const i of faceCandidates(faces, minScore)) if (best === null || area(faces[i]!.box) > area(faces[best]!.box)) best = i;
  return best;
}

function centrality(box: Box, frame: { width: number; height: number }): number {
  const dx = (box.x + box.width / 2 - frame.width / 2) / frame.width;
  const dy = (box.y + box.height / 2 - frame.height / 2) / frame.height;
  return 1 - Math.min(0.5, Math.hypot(dx, dy));
}
