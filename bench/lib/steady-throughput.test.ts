import { describe, expect, it } from 'vitest';
import { steadyThroughput, type Completion } from './steady-throughput.js';

/**
 * A station of `workers` workers, each taking `serviceMs` of one core a request, under `clients`
 * clients that send `total` requests in all: when each request ends.
 */
function simulate(workers: number, serviceMs: number, clients: number, total: number, seed = 0): Completion[] {
  const queue: number[] = [];
  const running: number[] = [];
  const ends: number[] = [];
  let sent = 0;
  let idle = workers;
  let now = 0;
  let started = seed;
  const send = () => {
    if (sent < total) {
      sent++;
      queue.push(now);
    }
  };
  for (let c = 0; c < clients; c++) send();
  while (queue.length > 0 || running.length > 0) {
    for (; idle > 0 && queue.length > 0; idle--) {
      queue.shift();
      // Each request a little longer or shorter (±10 %, a sequence set by the seed).
      running.push(now + serviceMs * (1 + 0.2 * (((started++ * 0.618034) % 1) - 0.5)));
    }
    running.sort((a, b) => a - b);
    now = running.shift()!;
    idle++;
    ends.push(now);
    send(); // the client whose request ended sends its next one
  }
  // The workers' CPU while busy, which is all of them until the clients stop sending.
  return ends.map((at) => ({ at, cpuMicros: at * 1000 * workers }));
}

describe('steady throughput', () => {
  it('times two workers at twice one, where a run timed whole falls short', () => {
    // 47 requests: at the end two workers' last one often runs alone while the other idles.
    const whole = (c: Completion[]) => c.length / (c.at(-1)!.at / 1000);
    // The answers between the window's two ends over its length: the two workers start together
    // and answer in near-simultaneous pairs for a while, and an end that cuts a pair counts short.
    const betweenEnds = (c: Completion[]) => (c.length - 8) / ((c[c.length - 5]!.at - c[3]!.at) / 1000);
    const ratios = Array.from({ length: 200 }, (_, seed) => {
      const one = simulate(1, 150, 4, 47, seed * 47);
      const two = simulate(2, 150, 4, 47, seed * 47);
      const ratio = (f: (c: Completion[]) => number) => f(two) / f(one);
      return {
        steady: steadyThroughput(two, 4).rps / steadyThroughput(one, 4).rps,
        whole: ratio(whole),
        betweenEnds: ratio(betweenEnds),
      };
    });
    const mean = (f: (r: (typeof ratios)[number]) => number) => ratios.reduce((a, r) => a + f(r), 0) / ratios.length;
    expect(mean((r) => r.steady)).toBeCloseTo(2, 2);
    // Timed from the first request sent to the last answered, the ratio comes out lower.
    expect(mean((r) => r.whole)).toBeLessThan(1.98);
    expect(mean((r) => r.betweenEnds)).toBeLessThan(1.98);
    const { rps, cores } = steadyThroughput(simulate(2, 150, 4, 47), 4);
    expect(rps).toBeCloseTo(2000 / 150, 0);
    expect(cores).toBeCloseTo(2, 6);
  });

  it('refuses a run too short to have a steady window', () => {
    expect(() => steadyThroughput(simulate(1, 150, 4, 8), 4)).toThrow(/no steady window/);
    expect(() => steadyThroughput(simulate(1, 150, 4, 9), 4)).not.toThrow();
  });
});
