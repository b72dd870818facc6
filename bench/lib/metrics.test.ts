import { describe, expect, it } from 'vitest';
import { allPairs } from './metrics.js';

describe('allPairs', () => {
  const items = [
    { identity: 'a', v: 1 },
    { identity: 'a', v: 2 },
    { identity: 'b', v: 4 },
  ];
  const sum = (x: { v: number }, y: { v: number }) => x.v + y.v;

  it('scores every unordered pair once, genuine within one identity', () => {
    expect(allPairs(items, sum)).toEqual([
      { score: 3, genuine: true },
      { score: 5, genuine: false },
      { score: 6, genuine: false },
    ]);
  });

  it('scores only the pairs `include` keeps', () => {
    const scored: number[] = [];
    const pairs = allPairs(
      items,
      (x, y) => {
        scored.push(x.v + y.v);
        return x.v + y.v;
      },
      (x, y) => x.v === 4 || y.v === 4,
    );
    expect(pairs).toEqual([
      { score: 5, genuine: false },
      { score: 6, genuine: false },
    ]);
    expect(scored).toEqual([5, 6]);
  });
});
