import { describe, expect, it } from 'vitest';
import type { Point } from '../types.js';
import { expressionGeometry } from './expression-geometry.js';

/**
 * A schematic face, eyes 100 px apart at y = 100: brows `brow` px above the eyes, mouth corners
 * `lift` px above the upper lip's inner centre, lips `gap` px apart, chin at `chin`.
 */
function face({ brow = 30, lift = 0, gap = 0, chin = 250, width = 90 } = {}): Point[] {
  const points: Point[] = Array.from({ length: 68 }, () => [150, 150] as Point);
  for (let i = 36; i < 42; i++) points[i] = [100, 100];
  for (let i = 42; i < 48; i++) points[i] = [200, 100];
  for (let i = 17; i < 27; i++) points[i] = [100 + (i - 17) * 11, 100 - brow];
  points[33] = [150, 160];
  points[3] = [70, 190];
  points[13] = [230, 190];
  points[8] = [150, chin];
  points[62] = [150, 200];
  points[66] = [150, 200 + gap];
  points[48] = [150 - width / 2, 200 - lift];
  points[54] = [150 + width / 2, 200 - lift];
  return points;
}

const turn = (points: Point[], angle: number): Point[] =>
  points.map(([x, y]) => [
    150 + (x - 150) * Math.cos(angle) - (y - 150) * Math.sin(angle),
    150 + (x - 150) * Math.sin(angle) + (y - 150) * Math.cos(angle),
  ]);

describe('the mesh measures of an expression', () => {
  it('reads raised corners, a wide mouth, brows and jaw in eye distances', () => {
    const g = expressionGeometry(face({ lift: 9, brow: 30 }));
    expect(g.cornerLift).toBeCloseTo(0.1, 6);
    expect(g.cornerDepth).toBeCloseTo(0.31, 6);
    expect(g.mouthWidth).toBeCloseTo(0.9 / 1.6, 6);
    expect(g.browHeight).toBeCloseTo(0.3, 6);
    expect(g.jawDrop).toBeCloseTo(0.9, 6);
  });

  it('reads corners below the lips as a negative lift', () => {
    expect(expressionGeometry(face({ lift: -6 })).cornerLift).toBeLessThan(0);
  });

  it('does not change with the head rolled or the face smaller in the frame', () => {
    const level = expressionGeometry(face({ lift: 9, brow: 40 }));
    const rolled = expressionGeometry(turn(face({ lift: 9, brow: 40 }), 0.4));
    const small = expressionGeometry(face({ lift: 9, brow: 40 }).map(([x, y]) => [x / 3, y / 3] as Point));
    for (const other of [rolled, small]) {
      for (const key of Object.keys(level) as (keyof typeof level)[]) expect(other[key]).toBeCloseTo(level[key], 6);
    }
  });
});
