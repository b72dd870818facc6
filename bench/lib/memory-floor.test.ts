import { describe, expect, it } from 'vitest';
import { WASM_PAGE, wasm } from '../../server/search/index.js';
import { loadsKernel, measureMemoryFloor } from './memory-floor.js';

describe('memory floor of a scan', () => {
  it('reads every byte of the range it is given (the loads are not dead code)', () => {
    const memory = new wasm.Memory({ initial: 1, maximum: 1, shared: true });
    new Uint8Array(memory.buffer).fill(1);
    const sum = loadsKernel(memory);
    // Each byte lane gains 4 per 64 bytes read: 10 turns leave 40 in every byte of lane 0.
    expect(sum(0, 640)).toBe(0x28282828);
    new Uint8Array(memory.buffer)[576] = 2; // byte lane 0
    expect(sum(0, 640)).toBe(0x28282829);
    expect(sum(0, WASM_PAGE) & 0xff).toBe((4 * (WASM_PAGE / 64) + 1) & 0xff);
  });

  it('splits the read over two threads and lets the helper go', async () => {
    for (const threads of [1, 2] as const) {
      // On 4 KiB pages with one thread, huge pages advised with two: both ways run.
      const floor = await measureMemoryFloor(2 ** 20, threads, threads === 2, 3);
      expect(floor).toMatchObject({ bytes: 2 ** 20, threads });
      expect(floor.ms).toBeGreaterThan(0);
      expect(floor.gbPerS).toBeCloseTo(floor.bytes / 1e6 / floor.ms, 6);
    }
  });
});
