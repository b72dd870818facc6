import { describe, expect, it } from 'vitest';
import { RecyclingPool } from './recycling-pool.js';

interface Fake {
  id: number;
  terminated: boolean;
}

function fakePool(recycleAfter: number, failCreate = () => false) {
  let next = 1;
  const made: Fake[] = [];
  const pool = new RecyclingPool<Fake>({
    size: 2,
    recycleAfter,
    create: async () => {
      if (failCreate()) throw new Error('no arranca');
      const w = { id: next++, terminated: false };
      made.push(w);
      return w;
    },
    destroy: async (w) => {
      w.terminated = true;
    },
  });
  return { pool, made };
}

describe('RecyclingPool', () => {
  it('runs at most `size` jobs at once and queues the rest', async () => {
    const { pool } = fakePool(100);
    let running = 0;
    let peak = 0;
    const job = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    await Promise.all(Array.from({ length: 7 }, () => pool.run(job)));
    expect(peak).toBe(2);
    await pool.close();
  });

  it('replaces a worker after N jobs and terminates the old one', async () => {
    const { pool, made } = fakePool(3);
    const used: number[] = [];
    for (let i = 0; i < 7; i++) used.push(await pool.run(async (w) => w.id));
    // sequential jobs always take the first free slot: worker 1 x3, then its replacement 3 x3, then 4
    expect(used).toEqual([1, 1, 1, 3, 3, 3, 4]);
    expect(pool.recycled).toBe(2);
    await new Promise((r) => setTimeout(r, 0));
    expect(made.find((w) => w.id === 1)?.terminated).toBe(true);
    await pool.close();
    expect(made.every((w) => w.terminated)).toBe(true);
  });

  it('fails the job, not the pool, when a worker cannot start, and retries with a fresh one', async () => {
    let fail = true;
    const { pool } = fakePool(10, () => fail);
    await expect(pool.run(async (w) => w.id)).rejects.toThrow('no arranca');
    fail = false;
    await expect(pool.run(async (w) => w.id)).rejects.toThrow('no arranca'); // second slot was also created failing
    expect(await pool.run(async (w) => w.id)).toBeGreaterThan(0);
    await pool.close();
    await expect(pool.run(async () => 1)).rejects.toThrow(/cerrado/);
  });

  it('replaces a worker whose job threw', async () => {
    const { pool } = fakePool(10);
    const first = await pool.run(async (w) => w.id);
    await expect(
      pool.run(async () => {
        throw new Error('falló');
      }),
    ).rejects.toThrow('falló');
    expect(pool.recycled).toBe(1);
    expect(await pool.run(async (w) => w.id)).not.toBe(first);
    await pool.close();
  });
});
