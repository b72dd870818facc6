import { describe, expect, it } from 'vitest';
import type { MajorFace } from '../../engines/face/types.js';
import { MIN_LOCATABLE_IOD, whyFaceUnusable } from './face-usable.js';

const face = (rightEye: [number, number], leftEye: [number, number], noseTip: [number, number]) =>
  ({ rightEye, leftEye, noseTip, iod: Math.hypot(leftEye[0] - rightEye[0], leftEye[1] - rightEye[1]) }) as unknown as MajorFace;
const frame = { width: 200, height: 200 };

describe('whyFaceUnusable', () => {
  it('passes a face that fills the frame with both eyes and the nose inside it', () => {
    expect(whyFaceUnusable(face([5, 80], [195, 80], [100, 150]), frame)).toBeNull();
  });

  it('refuses a face whose eye the frame edge cuts off, and a face too small to locate', () => {
    expect(whyFaceUnusable(face([-30, 80], [90, 80], [30, 140]), frame)).toMatch(/cortado por el borde/);
    expect(whyFaceUnusable(face([100, 100], [100 + MIN_LOCATABLE_IOD - 1, 100], [104, 106]), frame)).toMatch(
      /demasiado pequeño .*9 px entre ojos/,
    );
  });
});
