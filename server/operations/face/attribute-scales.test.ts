import { describe, expect, it } from 'vitest';
import { mouthOpenProbability, traitProbability } from './attribute-scales.js';

describe('the attribute scales', () => {
  it('keep the order of their cues', () => {
    for (const trait of ['glasses', 'beard', 'mustache'] as const) {
      const values = [0.01, 0.2, 0.5, 0.8, 0.99].map((cue) => traitProbability(trait, cue));
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    }
  });

  it('read lips shut as shut and lips a quarter of the mouth apart as open', () => {
    expect(mouthOpenProbability(0)).toBeLessThan(0.5);
    expect(mouthOpenProbability(0.25)).toBeGreaterThan(0.9);
  });
});
