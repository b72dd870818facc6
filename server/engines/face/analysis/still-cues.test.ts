import { describe, expect, it } from 'vitest';
import { powerSpectrum } from './still-cues.js';

describe('the still cues spectrum', () => {
  it('puts a stripe pattern at its frequency', () => {
    const n = 32;
    const patch = new Float64Array(n * n);
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) patch[y * n + x] = 128 + 50 * Math.cos((2 * Math.PI * 8 * x) / n);
    const power = powerSpectrum(patch, n);
    let best = 0;
    for (let i = 1; i < power.length; i++) if (power[i]! > power[best]!) best = i;
    expect([8, n - 8]).toContain(best % n);
    expect(Math.floor(best / n)).toBe(0);
  });
});
