import { describe, expect, it } from 'vitest';
import type { Point } from '../types.js';
import { dlibAlignmentBox, dlibChipPlacement } from './geometry.js';

/** 68 points in dlib's layout where only the eyes (36-47) and the mouth (48-67) matter here. */
function face(rightEye: Point, leftEye: Point, mouth: Point): Point[] {
  const points: Point[] = Array.from({ length: 68 }, () => [0, 0] as Point);
  for (let i = 36; i < 42; i++) points[i] = rightEye;
  for (let i = 42; i < 48; i++) points[i] = leftEye;
  for (let i = 48; i < 68; i++) points[i] = mouth;
  return points;
}

const turn = (p: Point, angle: number, about: Point): Point => {
  const [x, y] = [p[0] - about[0], p[1] - about[1]];
  return [about[0] + x * Math.cos(angle) - y * Math.sin(angle), about[1] + x * Math.sin(angle) + y * Math.cos(angle)];
};

describe("dlib's chip turned level with the eyes", () => {
  it("is dlib's alignment square when the eyes are level", () => {
    const points = face([100, 100], [160, 100], [130, 160]);
    const { box, roll } = dlibChipPlacement(points);
    const square = dlibAlignmentBox(points);
    expect(roll).toBe(0);
    expect(box.width).toBeCloseTo(box.height, 9);
    expect(Math.abs(box.x - square.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(box.y - square.y)).toBeLessThanOrEqual(1);
    expect(Math.abs(box.width - square.width)).toBeLessThanOrEqual(1);
  });

  it('turns with the face: same size, roll of the eye line, centre turned about the same point', () => {
    const level = face([100, 100], [160, 100], [130, 160]);
    const angle = 0.4;
    const about: Point = [130, 120];
    const tilted = face(turn([100, 100], angle, about), turn([160, 100], angle, about), turn([130, 160], angle, about));
    const a = dlibChipPlacement(level);
    const b = dlibChipPlacement(tilted);
    expect(b.roll).toBeCloseTo(angle, 9);
    expect(b.box.width).toBeCloseTo(a.box.width, 9);
    const centre = (p: typeof a): Point => [p.box.x + p.box.width / 2, p.box.y + p.box.height / 2];
    const expected = turn(centre(a), angle, about);
    expect(centre(b)[0]).toBeCloseTo(expected[0], 6);
    expect(centre(b)[1]).toBeCloseTo(expected[1], 6);
  });
});
