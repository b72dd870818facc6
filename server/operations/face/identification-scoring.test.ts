import { describe, expect, it } from 'vitest';
import { gaussian, seededRandom } from '../../../test/random.js';
import { CENTRE_PRIOR_SAMPLES } from '../../matching/gallery-centre.js';
import { normalize } from '../../matching/similarity.js';
import { EmbeddingIndex } from '../../search/index.js';
import { identificationOnGallery, type IdentificationScoring } from './identification-scoring.js';

const DIM = 32;
const plain = { mean: -0.1, std: 0.2, source: 'plain' };
const centred = { mean: -0.12, std: 0.18, source: 'centred' };
const scoring = (centring: number): IdentificationScoring => ({
  view: (e) => e,
  centring,
  impostors: plain,
  centredImpostors: centred,
});

/** Persons sharing one look in part, as a population's faces do. */
function gallery(persons: number): { index: EmbeddingIndex; common: Float32Array; probe: () => Float32Array } {
  const r = seededRandom(17);
  const common = normalize(Float32Array.from({ length: DIM }, () => gaussian(r)));
  const face = () => normalize(Float32Array.from({ length: DIM }, (_, i) => gaussian(r) / Math.sqrt(DIM) + common[i]!));
  const index = new EmbeddingIndex(DIM);
  for (let p = 0; p < persons; p++) index.set(`p${p}`, [face(), face(), face()]);
  return { index, common, probe: face };
}

describe('identification on the gallery of the moment', () => {
  it('scores the plain cosine with its own calibration when centring is off', () => {
    const { index, probe } = gallery(50);
    const g = identificationOnGallery(scoring(0), index);
    expect(g.shift(probe())).toBe(0);
    expect(g.impostors).toBe(plain);
  });

  it('takes nothing off on an empty gallery, calibrated as the plain cosine', () => {
    const g = identificationOnGallery(scoring(0.5), new EmbeddingIndex(DIM));
    expect(g.shift(Float32Array.from({ length: DIM }, () => 1))).toBe(0);
    expect(g.impostors).toMatchObject({ mean: plain.mean, std: plain.std });
  });

  it("takes off the probe's share along the gallery's mean, calibrated for the weight its size gives", () => {
    // Nearly as many samples as the prior: centred at about half weight.
    const { index, common, probe } = gallery(33);
    expect(index.sampleCount).toBe(99);
    const g = identificationOnGallery(scoring(0.5), index);
    const weight = 99 / (99 + CENTRE_PRIOR_SAMPLES);
    expect(g.impostors.mean).toBeCloseTo(plain.mean + weight * (centred.mean - plain.mean), 9);
    expect(g.impostors.std).toBeCloseTo(plain.std + weight * (centred.std - plain.std), 9);
    const q = probe();
    const sum = index.sampleSum();
    const expected = (0.5 * [...sum].reduce((s, x, i) => s + x * q[i]!, 0)) / (99 + CENTRE_PRIOR_SAMPLES);
    expect(g.shift(q)).toBeCloseTo(expected, 6);
    // A probe of the population loses more than one unlike it.
    const unlike = normalize(Float32Array.from(common, (x) => -x));
    expect(g.shift(q)).toBeGreaterThan(0.1);
    expect(g.shift(unlike)).toBeLessThan(-0.1);
  });
});
