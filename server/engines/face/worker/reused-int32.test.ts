import { describe, expect, it } from 'vitest';
import { ReusedInt32 } from './reused-int32.js';

describe('ReusedInt32', () => {
  it('hands out the same memory while requests fit what it keeps, and grows only up to its limit', () => {
    const kept = new ReusedInt32(100);
    const small = kept.take(40);
    const grown = kept.take(60);
    expect(grown.buffer).not.toBe(small.buffer);
    expect(kept.take(60).buffer).toBe(grown.buffer);
    expect(kept.take(10).buffer).toBe(grown.buffer);
    expect(kept.take(10)).toHaveLength(10);
    const full = kept.take(100);
    expect(kept.take(100).buffer).toBe(full.buffer);
  });

  it('gives a request past its limit an array of its own, and keeps what it had', () => {
    const kept = new ReusedInt32(100);
    const held = kept.take(100);
    const large = kept.take(101);
    expect(large).toHaveLength(101);
    expect(large.buffer).not.toBe(held.buffer);
    expect(kept.take(50).buffer).toBe(held.buffer);
  });
});
