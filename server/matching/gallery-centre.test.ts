import { describe, expect, it } from 'vitest';
import { gaussian, seededRandom } from '../../test/random.js';
import { EmbeddingIndex } from '../search/index.js';
import {
  CENTRE_PRIOR_SAMPLES,
  CENTRING_SHARE,
  centredImpostors,
  centringShift,
  centringWeight,
  galleryCentre,
} from './gallery-centre.js';
import { dot, normalize } from './similarity.js';

const DIM = 64;

/** Faces of a population: a look everyone shares in some degree, plus each person's own. */
function population(seed: number, persons: number, samples: number) {
  const r = seededRandom(seed);
  const common = normalize(Float32Array.from({ length: DIM }, () => gaussian(r)));
  const vec = (base: Float32Array, w: number, noise: number) =>
    normalize(base.map((x, i) => x + w * common[i]! + noise * gaussian(r) * Math.sqrt(1 / DIM)));
  return {
    common,
    people: Array.from({ length: persons }, () => {
      const own = normalize(Float32Array.from({ length: DIM }, () => gaussian(r)));
      const w = 0.3 + r();
      return { own, samples: Array.from({ length: samples }, () => vec(own, w, 0.5)), probe: vec(own, w, 0.5) };
    }),
  };
}

function centreOf(index: EmbeddingIndex): Float32Array {
  return galleryCentre(index.sampleSum(), index.sampleCount);
}

describe('gallery centring', () => {
  it("takes off a large gallery's mean, so a probe that looks like everyone loses most", () => {
    const { common, people } = population(3, 1000, 3);
    const index = new EmbeddingIndex(DIM);
    people.forEach((p, i) => index.set(`p${i}`, p.samples));
    const centre = centreOf(index);
    // Shrunk by a tenth at most: 3,000 samples against a prior of 100.
    const mean = index.sampleSum().map((x) => x / index.sampleCount);
    const ratio = dot(centre, Float32Array.from(mean)) / dot(Float32Array.from(mean), Float32Array.from(mean));
    expect(ratio).toBeCloseTo(3000 / (3000 + CENTRE_PRIOR_SAMPLES), 6);
    // The probes that share the common look most are lowered most.
    const byLook = [...people].sort((a, b) => dot(a.probe, common) - dot(b.probe, common));
    const shift = (p: (typeof people)[number]) => centringShift(p.probe, centre);
    const low = byLook.slice(0, 100).reduce((s, p) => s + shift(p), 0) / 100;
    const high = byLook.slice(-100).reduce((s, p) => s + shift(p), 0) / 100;
    expect(high).toBeGreaterThan(low + 0.05);
    expect(shift(people[0]!)).toBeCloseTo(CENTRING_SHARE * dot(normalize(people[0]!.probe), centre), 6);
  });

  it("hardly moves a small gallery's own people: the mean is shrunk toward none", () => {
    const { people } = population(4, 1, 3);
    const index = new EmbeddingIndex(DIM);
    index.set('solo', people[0]!.samples);
    const shift = centringShift(people[0]!.probe, centreOf(index));
    expect(Math.abs(shift)).toBeLessThan(0.015);
    // Without the prior the gallery's mean would be that person, and their probe would lose much.
    expect(centringShift(people[0]!.probe, galleryCentre(index.sampleSum(), index.sampleCount, 0))).toBeGreaterThan(0.2);
  });

  it('is nothing on an empty gallery, and the sum goes back to none as people leave', () => {
    const { people } = population(5, 20, 2);
    const index = new EmbeddingIndex(DIM);
    expect(centringShift(people[0]!.probe, centreOf(index))).toBe(0);
    people.forEach((p, i) => index.set(`p${i}`, p.samples));
    people.forEach((_, i) => index.remove(`p${i}`));
    expect(Math.max(...index.sampleSum().map(Math.abs))).toBeLessThan(1e-6);
  });

  it('reads the leading part of a longer probe, as a prefix index does', () => {
    const { people } = population(6, 50, 2);
    const index = new EmbeddingIndex(DIM);
    people.forEach((p, i) => index.set(`p${i}`, p.samples));
    const centre = centreOf(index);
    const probe = people[1]!.probe;
    const longer = new Float32Array(DIM + 16).fill(0.3);
    longer.set(probe);
    expect(centringShift(longer, centre)).toBeCloseTo(centringShift(probe, centre), 6);
  });

  it('calibrates a gallery centred in part between the plain and the fully centred impostors', () => {
    const plain = { mean: -0.1, std: 0.2, source: 'a' };
    const full = { mean: -0.12, std: 0.18, source: 'b' };
    expect(centringWeight(0)).toBe(0);
    expect(centringWeight(CENTRE_PRIOR_SAMPLES)).toBe(0.5);
    expect(centredImpostors(plain, full, 0)).toMatchObject({ mean: -0.1, std: 0.2 });
    expect(centredImpostors(plain, full, 1)).toMatchObject({ mean: -0.12, std: 0.18 });
    const half = centredImpostors(plain, full, centringWeight(CENTRE_PRIOR_SAMPLES));
    expect(half.mean).toBeCloseTo(-0.11, 9);
    expect(half.std).toBeCloseTo(0.19, 9);
    expect(centredImpostors(plain, full, 3)).toMatchObject({ mean: -0.12, std: 0.18 });
  });
});
