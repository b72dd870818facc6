import { describe, expect, it } from 'vitest';
import type { Point } from '../types.js';
import { meshAs68 } from './mesh-landmarks.js';

describe('meshAs68', () => {
  // Each vertex tagged with its own index, so the 68 points say which vertices they are.
  const mesh: Point[] = Array.from({ length: 478 }, (_, i) => [i, -i]);
  const index = (p: Point) => p[0];

  it('takes 68 distinct mesh vertices, the anchors at MediaPipe vertices named for them', () => {
    const points = meshAs68(mesh)!;
    expect(points).toHaveLength(68);
    expect(new Set(points.map(index)).size).toBe(68);
    expect(points.every((p) => index(p) < 468 && p[1] === -p[0])).toBe(true);
    // chin, nose tip, the eyes' outer and inner corners, the mouth corners
    const anchors = { 8: 152, 30: 4, 36: 33, 39: 133, 42: 362, 45: 263, 48: 61, 54: 291 };
    for (const [ibug, vertex] of Object.entries(anchors)) expect(index(points[Number(ibug)]!)).toBe(vertex);
  });

  it('gives nothing without a full mesh', () => {
    expect(meshAs68(mesh.slice(0, 100))).toBeNull();
    expect(meshAs68([])).toBeNull();
  });
});
