import { describe, expect, it } from 'vitest';
import { FirstPassSizer, kthLargest, topIndices } from './shortlist.js';

describe('topIndices', () => {
  it('picks the m largest, ties by position, and everything when m covers all', () => {
    const v = new Float32Array([0.5, 0.9, 0.1, 0.9, 0.7, 0.2]);
    expect([...topIndices(v, 3)].sort()).toEqual([1, 3, 4]);
    expect([...topIndices(v, 1)]).toEqual([1]);
    expect([...topIndices(v, 6)]).toEqual([0, 1, 2, 3, 4, 5]);
    expect([...topIndices(v, 0)]).toEqual([]);
    expect([...v]).toEqual([...new Float32Array([0.5, 0.9, 0.1, 0.9, 0.7, 0.2])]);
  });
});

describe('kthLargest', () => {
  it('is the k-th largest, -Infinity when there are fewer', () => {
    expect(kthLargest([3, 1, 2], 1)).toBe(3);
    expect(kthLargest([3, 1, 2], 3)).toBe(1);
    expect(kthLargest(new Map([[1, 0.5]]).values(), 2)).toBe(-Infinity);
    // Exact scores keep their float64 value (a float32 would round 0.1 up).
    expect(kthLargest([0.1, 0.3], 2)).toBe(0.1);
  });
});

describe('FirstPassSizer', () => {
  it('keeps twice the most any recent search needed, within its floor and ceiling', () => {
    const s = new FirstPassSizer(128, 65536, 4);
    expect(s.record(10)).toBe(128);
    expect(s.record(1000)).toBe(2032);
    // One search needing little does not shrink the list while a larger need is recent.
    expect(s.record(100)).toBe(2032);
    s.record(100);
    s.record(100);
    expect(s.record(100)).toBe(232);
    expect(s.record(1e6)).toBe(65536);
  });
});
