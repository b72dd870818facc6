import { describe, expect, it } from 'vitest';
import { mergeDetections, needsPaddedPass } from './face-runtime.js';
import type { HumanFace } from './model-loader.js';

const face = (x: number, y: number, width: number, score = 0.9): HumanFace => ({
  box: [x, y, width, width * 1.1],
  score,
  boxScore: score,
  faceScore: score,
  mesh: [],
  annotations: {},
});

describe('needsPaddedPass', () => {
  const webcam = { width: 640, height: 480 };

  it('spares a face among its surroundings, also one close to the camera', () => {
    expect(needsPaddedPass([face(200, 120, 180)], webcam)).toBe(false);
    expect(needsPaddedPass([face(160, 80, 308)], webcam)).toBe(false);
  });

  it('looks again when no face is sure, when one face is boxed twice, or when a face fills the frame', () => {
    expect(needsPaddedPass([face(200, 120, 180, 0.2)], webcam)).toBe(true);
    expect(needsPaddedPass([face(200, 120, 180), face(210, 125, 170)], webcam)).toBe(true);
    expect(needsPaddedPass([face(10, 0, 140)], { width: 150, height: 150 })).toBe(true);
  });
});

describe('mergeDetections', () => {
  it('keeps the surest of one face boxed twice, largest face first', () => {
    const merged = mergeDetections([face(10, 10, 100, 0.7), face(300, 40, 60), face(14, 12, 98, 0.95)]);
    expect(merged.map((f) => f.score)).toEqual([0.95, 0.9]);
  });

  it('drops a face inside a larger one: part of that head boxed by a pass that saw too little of it', () => {
    const whole = face(0, 0, 150, 0.8);
    const part = face(70, 20, 50, 0.95);
    expect(mergeDetections([part, whole])).toEqual([whole]);
    // Two people side by side are both kept.
    expect(mergeDetections([face(0, 0, 150), face(160, 0, 140)])).toHaveLength(2);
  });
});
