import { describe, expect, it } from 'vitest';
import { hardestPhotos } from './hardest-photos.js';

// Each photo is a point on a line; a pair scores 1 - distance.
const photo = (file: string, identity: string, x: number) => ({ file, identity, x });
const score = (a: { x: number }, b: { x: number }) => 1 - Math.abs(a.x - b.x);

describe('hardest photos', () => {
  const photos = [
    photo('a1', 'a', 0),
    photo('a2', 'a', 0.05),
    photo('a3', 'a', 0.6), // far from both of its person's photos
    photo('b1', 'b', 5),
    photo('b2', 'b', 5.3), // one pair under the threshold
    photo('c1', 'c', 9), // alone: no genuine pair
  ];

  it('ranks photos by the genuine pairs they fail, counting each pair for both photos', () => {
    const hardest = hardestPhotos(photos, score, 0.8, 10);
    expect(hardest.map((h) => [h.file, h.failed, h.genuine_pairs])).toEqual([
      ['a3', 2, 2],
      ['b1', 1, 1],
      ['b2', 1, 1],
      ['a1', 1, 2],
      ['a2', 1, 2],
    ]);
    expect(hardest[0]!.best_genuine).toBeCloseTo(0.45, 10);
  });

  it('leaves out photos without a failure and keeps at most `count`', () => {
    expect(hardestPhotos(photos, score, 0.3, 10)).toEqual([]);
    expect(hardestPhotos(photos, score, 0.8, 1).map((h) => h.file)).toEqual(['a3']);
  });
});
