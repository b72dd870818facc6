import { describe, expect, it } from 'vitest';
import { extractParametersSchema } from '../../../../common/api/face-schemas.js';
import type { DetectedFace } from '../types.js';
import { chooseMajorFace, DEFAULT_MIN_FACE_SCORE, faceCandidates, largestFace } from './major-face.js';

const frame = { width: 640, height: 480 };
const face = (x: number, y: number, size: number, score = 1, height = size): DetectedFace => ({
  box: { x, y, width: size, height },
  score,
});
// As Human boxed a singer: a doubted box over her hair, face and microphone, around her face.
const singer = [face(0, 0, 238, 0.65, 334), face(128, 98, 161)];

describe('chooseMajorFace', () => {
  it('takes the vendor minConfidence default as the score of a sure face', () => {
    expect(DEFAULT_MIN_FACE_SCORE * 100).toBe(extractParametersSchema.parse({}).minConfidence);
  });

  it('describes the sure face, not a doubted box drawn around it', () => {
    expect(chooseMajorFace(singer, frame, true)).toEqual({ kind: 'dominant', index: 1, others: 1 });
    expect(chooseMajorFace(singer, frame, false)).toEqual({ kind: 'dominant', index: 1, others: 1 });
    expect(largestFace(singer)).toBe(1);
  });

  it('a request may lower the floor: the doubted box is then a face, and the larger', () => {
    expect(chooseMajorFace(singer, frame, true, 0.5)).toEqual({ kind: 'dominant', index: 0, others: 1 });
    expect(largestFace(singer, 0.5)).toBe(0);
  });

  it('keeps a doubted face apart from the sure one: it may be the person enrolled', () => {
    // Sunglasses in front (doubted, larger), a colleague behind (sure, smaller): not the colleague.
    const faces = [face(60, 80, 260, 0.62), face(420, 60, 110)];
    expect(faceCandidates(faces)).toEqual([0, 1]);
    expect(chooseMajorFace(faces, frame, true)).toEqual({ kind: 'dominant', index: 0, others: 1 });
    expect(largestFace(faces)).toBe(0);
    // Of similar size, the two are rivals.
    expect(chooseMajorFace([face(300, 150, 120, 0.62), face(150, 150, 120)], frame, true)).toEqual({
      kind: 'ambiguous',
      count: 2,
    });
  });

  it('needs the doubted box to hold the centre and half of the sure face', () => {
    // Overlapping a corner of the face only: a separate detection.
    expect(faceCandidates([face(0, 0, 200, 0.5), face(150, 150, 120)])).toEqual([0, 1]);
    // Its centre held, but not half of it.
    expect(faceCandidates([face(0, 0, 215, 0.5, 165), face(150, 100, 120)])).toEqual([0, 1]);
    // Both.
    expect(faceCandidates([face(0, 0, 240, 0.5, 480), face(150, 100, 120)])).toEqual([1]);
  });

  it('still refuses two sure faces of similar size, and keeps a clearly larger one over a bystander', () => {
    expect(chooseMajorFace([face(100, 100, 150), face(350, 100, 140, 0.9)], frame, true)).toEqual({
      kind: 'ambiguous',
      count: 2,
    });
    expect(chooseMajorFace([face(400, 50, 60), face(200, 150, 200)], frame, true)).toEqual({
      kind: 'dominant',
      index: 1,
      others: 1,
    });
  });

  it('chooses among all detections when none is sure, so a lone doubtful face is still described', () => {
    expect(faceCandidates([face(0, 0, 100, 0.5), face(200, 0, 50, 0.3)])).toEqual([0, 1]);
    expect(chooseMajorFace([face(100, 100, 150, 0.4)], frame, true)).toEqual({ kind: 'single', index: 0 });
    expect(largestFace([face(0, 0, 100, 0.5), face(200, 0, 50, 0.3)])).toBe(0);
    expect(largestFace([])).toBeNull();
    expect(chooseMajorFace([], frame, true)).toEqual({ kind: 'none' });
  });
});
