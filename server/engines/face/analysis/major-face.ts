import type { Box, DetectedFace } from '../types.js';
import { area } from './geometry.js';

/** A second face at least this wide, relative to the largest, is a rival rather than a bystander. */
export const RIVAL_WIDTH_RATIO = 0.75;

/**
 * The detector confidence below which a detection is not taken for a face when a surer one is in
 * the frame: the vendor's `minConfidence` default (80). Human's mesh scores real faces facing the
 * camera at 0.94-1, and places boxes at 0.2-0.87 on hands, printed text, a dog, hair or a box
 * larger than the face it half covers; such a box must neither be described instead of the face
 * nor make it ambiguous (docs/face-engine.md, "Which detections are faces").
 */
export const DEFAULT_MIN_FACE_SCORE = 0.8;

/**
 * Indices of the detections an operation chooses its face among: those at `minScore` or above,
 * or all of them when none is (a lone doubtful face is still described, and its gate then says
 * why it is refused).
 */
export function faceCandidates(faces: readonly DetectedFace[], minScore = DEFAULT_MIN_FACE_SCORE): number[] {
  const sure = faces.flatMap((f, i) => (f.score >= minScore ? [i] : []));
  return sure.length > 0 ? sure : faces.map((_, i) => i);
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
