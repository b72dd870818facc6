import { describe, expect, it } from 'vitest';
import { cosine, dot, normalize } from '../../matching/similarity.js';
import { EMBEDDING_DIM } from './face-model.js';
import { FUSION_IMPOSTOR_STD, fuseDescriptors, IDENTIFICATION_DIM, identificationView } from './fused-descriptor.js';

const random = (n: number, seed: number) =>
  new Float32Array(n).map((_, i) => (Math.sin(seed * 1000 + i * 12.9898) * 43758.5453) % 1);

describe('fuseDescriptors', () => {
  it('is one unit vector of the stored dimension, whatever the ResNet descriptor’s norm', () => {
    const v = fuseDescriptors(
      normalize(random(192, 1)),
      random(128, 2).map((x) => x * 7),
    );
    expect(v.length).toBe(EMBEDDING_DIM);
    expect(dot(v, v)).toBeCloseTo(1, 6);
  });

  it('gives identification back the MobileFaceNet descriptor it was made from', () => {
    const m = normalize(random(192, 11));
    const part = identificationView(fuseDescriptors(m, random(128, 12)));
    expect(part.length).toBe(IDENTIFICATION_DIM);
    expect(dot(part, m)).toBeCloseTo(1, 6);
  });

  it('scores two faces as the impostor-weighted mean of the two descriptors’ cosines', () => {
    const wm = 1 / FUSION_IMPOSTOR_STD.mobileFaceNet;
    const wr = 1 / FUSION_IMPOSTOR_STD.resNet;
    for (let seed = 3; seed < 9; seed++) {
      const [m1, m2] = [normalize(random(192, seed)), normalize(random(192, seed + 50))];
      const [r1, r2] = [random(128, seed + 100), random(128, seed + 150)];
      const expected = (wm * cosine(m1, m2) + wr * cosine(r1, r2)) / (wm + wr);
      expect(dot(fuseDescriptors(m1, r1), fuseDescriptors(m2, r2))).toBeCloseTo(expected, 5);
    }
  });
});
