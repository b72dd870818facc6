import type { Box, DetectedFace } from '../types.js';
import { area } from './geometry.js';

/** A second face at least this wide, relative to the largest, is a rival rather than a bystander. */
export const RIVAL_WIDTH_RATIO = 0.75;

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
): MajorFaceDecision {
  if (faces.length === 0) return { kind: 'none' };
  if (faces.length === 1) return { kind: 'single', index: 0 };
  if (!onlyMajor) return { kind: 'ambiguous', count: faces.length };
  const ranked = faces
    .map((f, index) => ({ index, weight: area(f.box) * centrality(f.box, frame), width: f.box.width }))
    .sort((a, b) => b.weight - a.weight);
  const [first, second] = ranked as [(typeof ranked)[number], (typeof ranked)[number]];
  if (second.width >= first.width * RIVAL_WIDTH_RATIO) return { kind: 'ambiguous', count: faces.length };
  return { kind: 'dominant', index: first.index, others: faces.length - 1 };
}

function centrality(box: Box, frame: { width: number; height: number }): number {
  const dx = (box.x + box.width / 2 - frame.width / 2) / frame.width;
  const dy = (box.y + box.height / 2 - frame.height / 2) / frame.height;
  return 1 - Math.min(0.5, Math.hypot(dx, dy));
}
