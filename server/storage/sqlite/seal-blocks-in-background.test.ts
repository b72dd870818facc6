import { afterEach, describe, expect, it, vi } from 'vitest';
import { sealBlocksInBackground } from './seal-blocks-in-background.js';
import type { SqliteGallery } from './sqlite-gallery.js';

/** A store with `missing` ranges to seal, whose sealing can be made to fail. */
function fakeStore(missing: number) {
  const state = { missing, calls: [] as { modelId: string; atMost: number; leading: number | undefined }[], fail: false };
  const store = {
    sealEmbeddingBlocks(modelId: string, atMost: number, leading?: number) {
      state.calls.push({ modelId, atMost, leading });
      if (state.fail) throw new Error('disco lleno');
      const sealed = Math.min(atMost, state.missing);
      state.missing -= sealed;
      return { sealed, missing: state.missing };
    },
  } as unknown as SqliteGallery;
  return { store, state };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('sealing blocks in the background', () => {
  it('seals one block a pause until none is missing, says so once, then looks again after the idle wait', () => {
    vi.useFakeTimers();
    const { store, state } = fakeStore(3);
    const logger = { info: vi.fn(), warn: vi.fn() };
    const stop = sealBlocksInBackground(store, 'm@1', { logger, leading: 192, pauseMs: 10, idleMs: 1000 });
    expect(state.calls).toHaveLength(0);
    vi.advanceTimersByTime(30);
    expect(state.calls).toEqual(Array.from({ length: 3 }, () => ({ modelId: 'm@1', atMost: 1, leading: 192 })));
    expect(state.missing).toBe(0);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(logger.info.mock.calls[0]![0]).toEqual({ sealed: 3 });
    vi.advanceTimersByTime(999);
    expect(state.calls).toHaveLength(3);
    // New ranges to seal (deletions, enrollments that filled a range) are found at the next look.
    state.missing = 1;
    vi.advanceTimersByTime(1);
    expect(state.calls).toHaveLength(4);
    expect(state.missing).toBe(0);
    stop();
    vi.advanceTimersByTime(10_000);
    expect(state.calls).toHaveLength(4);
  });

  it('after a failure warns and waits for the next look, leaving the rows readable', () => {
    vi.useFakeTimers();
    const { store, state } = fakeStore(2);
    state.fail = true;
    const logger = { info: vi.fn(), warn: vi.fn() };
    const stop = sealBlocksInBackground(store, 'm@1', { logger, pauseMs: 10, idleMs: 1000 });
    vi.advanceTimersByTime(500);
    expect(state.calls).toHaveLength(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    state.fail = false;
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(20);
    expect(state.missing).toBe(0);
    stop();
  });
});
