import { describe, expect, it } from 'vitest';
import { GENDER_MIN_PROBABILITY, genderOf } from './face-properties.js';

describe('genderOf', () => {
  it('names the sex the net is sure of, with its probability', () => {
    expect(genderOf({ type: 'FEMALE', score: 0.98 })).toEqual({ type: 'FEMALE', confidence: 98 });
    expect(genderOf({ type: 'MALE', score: GENDER_MIN_PROBABILITY })).toEqual({ type: 'MALE', confidence: 75 });
  });

  it('names none where the net is less than three to one sure, keeping the likelier sex’s probability', () => {
    expect(genderOf({ type: 'MALE', score: 0.74 })).toEqual({ type: 'NOT_DETECTED', confidence: 74 });
    expect(genderOf({ type: 'FEMALE', score: 0.5 })).toEqual({ type: 'NOT_DETECTED', confidence: 50 });
  });
});
