import { describe, expect, it } from 'vitest';
import { extractParametersSchema } from '../../../../common/api/face-schemas.js';
import type { DetectedFace } from '../types.js';
import { chooseMajorFace, DEFAULT_MIN_FACE_SCORE, faceCandidates, largestFace } from './major-face.js';

const frame = { width: 640, height: 480 };
const face = (x: number, y: number, size: number, score = 1, height = size): DetectedFace => ({
  box: { x, y, width: size, height },
  score,
});

describe('chooseMajorFace', () => {
  it('takes the vendor minConfidence default as the floor of a face', () => {
    expect(DEFAULT_MIN_FACE_SCORE * 100).toBe(extractParametersSchema.parse({}).minConfidence);
  });

  it('describes the sure face beside a larger doubtful box instead of the box', () => {
    // A box half over the face at 0.65, larger than it (as Human places on a singer behind a microphone).
    const faces = [face(0, 0, 238, 0.65, 334), face(128, 98, 161)];
    expect(chooseMajorFace(faces, frame, true)).toEqual({ kind: 'dominant', index: 1, others: 1 });
    expect(largestFace(faces)).toBe(1);
  });

  it('does not let a doubtful detection of similar size make the frame ambiguous', () => {
    const faces = [face(300, 150, 120, 0.62), face(150, 150, 120)];
    expect(chooseMajorFace(faces, frame, true)).toEqual({ kind: 'dominant', index: 1, others: 1 });
    // With detectOnlyMajorFace off, it is still one face.
    expect(chooseMajorFace(faces, frame, false)).toEqual({ kind: 'dominant', index: 1, others: 1 });
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

  it('a request may lower the floor: the doubtful box then counts again', () => {
    const faces = [face(0, 0, 238, 0.65, 334), face(128, 98, 161)];
    expect(chooseMajorFace(faces, frame, true, 0.5)).toEqual({ kind: 'dominant', index: 0, others: 1 });
    expect(largestFace(faces, 0.5)).toBe(0);
  });

  it('chooses among all detections when none is sure, so a lone doubtful face is still described', () => {
    expect(faceCandidates([face(0, 0, 100, 0.5), face(200, 0, 50, 0.3)])).toEqual([0, 1]);
    expect(chooseMajorFace([face(100, 100, 150, 0.4)], frame, true)).toEqual({ kind: 'single', index: 0 });
    expect(largestFace([face(0, 0, 100, 0.5), face(200, 0, 50, 0.3)])).toBe(0);
    expect(largestFace([])).toBeNull();
    expect(chooseMajorFace([], frame, true)).toEqual({ kind: 'none' });
  });
});
