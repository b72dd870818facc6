import { describe, expect, it } from 'vitest';
import type { Point } from '../types.js';
import { expressionGeometry } from './expression-geometry.js';

/** A schematic face, eyes 100 px apart at y = 100, brows `brow` px above the eyes. */
function face({ brow = 30 } = {}): Point[] {
  const points: Point[] = Array.from({ length: 68 }, () => [150, 150] as Point);
  for (let i = 36; i < 42; i++) points[i] = [100, 100];
  for (let i = 42; i < 48; i++) points[i] = [200, 100];
  for (let i = 17; i < 27; i++) points[i] = [100 + (i - 17) * 11, 100 - brow];
  return points;
}

const turn = (points: Point[], angle: number): Point[] =>
  points.map(([x, y]) => [
    150 + (x - 150) * Math.cos(angle) - (y - 150) * Math.sin(angle),
    150 + (x - 150) * Math.sin(angle) + (y - 150) * Math.cos(angle),
  ]);

describe('the mesh measures of an expression', () => {
  it('reads the brows in eye distances', () => {
    expect(expressionGeometry(face({ brow: 30 })).browHeight).toBeCloseTo(0.3, 6);
    expect(expressionGeometry(face({ brow: 45 })).browHeight).toBeCloseTo(0.45, 6);
  });

  it('does not change with the head rolled or the face smaller in the frame', () => {
    const level = expressionGeometry(face({ brow: 40 }));
    const rolled = expressionGeometry(turn(face({ brow: 40 }), 0.4));
    const small = expressionGeometry(face({ brow: 40 }).map(([x, y]) => [x / 3, y / 3] as Point));
    for (const other of [rolled, small]) expect(other.browHeight).toBeCloseTo(level.browHeight, 6);
  });
});
