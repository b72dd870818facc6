import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/random.js';
import { openSetAtScale, thresholdForStrangers } from './open-set-scale.js';

// Gaussian scores: impostors N(0.5, 0.05), genuine N(0.8, 0.05).
function scores(n: number, mean: number, std: number, seed: number): number[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const u = Math.max(1e-12, rnd());
    return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
  });
}
const tail = { mean: 0.5, std: 0.05, source: 'test' };

describe('open-set identification at scale', () => {
  const impostor = scores(200_000, 0.5, 0.05, 1);
  const genuine = scores(2_000, 0.8, 0.05, 2);

  it('matches the closed form for strangers: 1 - (1 - q)^N', () => {
    // q at 3 sigma is about 1.35e-3: at N = 100 strangers pass 1 - (1 - q)^100 = 12.6 %.
    const r = openSetAtScale(genuine, impostor, tail, 100, 0.65);
    expect(r.strangers_accepted).toBeCloseTo(1 - Math.pow(1 - 1.35e-3, 100), 2);
    expect(r.impostor_rate_from).toBe('measured');
  });

  it('uses the fitted tail where the data has too few impostors above the threshold', () => {
    const r = openSetAtScale(genuine, impostor, tail, 100_000, 0.78);
    expect(r.impostor_rate_from).toBe('tail-fit');
    // q(0.78) = P(z > 5.6) ~ 1.07e-8 -> about 0.1 % of strangers at 100k.
    expect(r.strangers_accepted).toBeGreaterThan(5e-4);
    expect(r.strangers_accepted).toBeLessThan(2e-3);
  });

  it('finds fewer enrolled people as the gallery grows at the same threshold', () => {
    const small = openSetAtScale(genuine, impostor, tail, 100, 0.7);
    const large = openSetAtScale(genuine, impostor, tail, 100_000, 0.7);
    expect(small.known_found).toBeGreaterThan(large.known_found);
    expect(small.strangers_accepted).toBeLessThan(large.strangers_accepted);
  });

  it('finds the threshold that lets exactly the asked share of strangers through', () => {
    // Measured at 100 (q = 1e-4, 20 impostors of 200,000), from the fitted tail at 100,000 (q = 1e-7).
    for (const gallery of [100, 100_000]) {
      const t = thresholdForStrangers(impostor, tail, gallery, 0.01);
      expect(openSetAtScale(genuine, impostor, tail, gallery, t).strangers_accepted).toBeCloseTo(0.01, 3);
    }
    expect(thresholdForStrangers(impostor, tail, 100_000, 0.01)).toBeGreaterThan(
      thresholdForStrangers(impostor, tail, 100, 0.01),
    );
  });
});
