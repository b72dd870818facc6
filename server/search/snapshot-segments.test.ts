import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledBeside } from '../threads/worker-script.js';
import { IndexIntegrityError } from './index-files.js';
import type { SnapshotOpenData } from './snapshot-open-worker.js';
import { awaitSegments, claimSegments, segmentControl, segmentsOf, TAG_BYTES, writeSealedSegment } from './snapshot-segments.js';
import { wasm } from './wasm-kernel.js';

const dir = mkdtempSync(path.join(tmpdir(), 'segments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `parts` sealed in 4 KiB segments at 100-byte gaps, and what opens it. */
function sealedFile(name: string, parts: Uint8Array[]) {
  const key = randomBytes(32);
  const base = randomBytes(12);
  const aad = Buffer.from('cabecera y etiqueta');
  const file = path.join(dir, name);
  let end = 0;
  const layout = parts.map((p) => {
    const fileAt = end + 100;
    end = fileAt + p.length;
    return { fileAt, memoryAt: 0, bytes: p.length };
  });
  const fd = openSync(file, 'w');
  const tags = Buffer.alloc(parts.reduce((n, p) => n + Math.ceil(p.length / 4096), 0) * TAG_BYTES);
  for (const s of segmentsOf(layout, 4096)) {
    const clear = parts[s.part]!.subarray(s.memoryAt, s.memoryAt + s.length);
    writeSealedSegment(fd, key, base, aad, s.n, clear, s.fileAt, new Uint8Array(1000)).copy(tags, s.n * TAG_BYTES);
  }
  closeSync(fd);
  return { file, layout, seal: { key, base, aad, tags } };
}

describe('snapshot segments', () => {
  const parts = [randomBytes(10_000), randomBytes(4096 * 3), randomBytes(5)];

  it('a helper thread alone reads and opens every segment into shared memory; a segment whose tag fails is reported', async () => {
    const { file, layout, seal } = sealedFile('helper.seg', parts);
    const memory = new wasm.Memory({ initial: 1, maximum: 16, shared: true });
    // Each part 7 bytes after the one before in memory, from 1,000.
    const placed = layout.map((l, i) => ({ ...l, memoryAt: 1000 + parts.slice(0, i).reduce((n, p) => n + p.length + 7, 0) }));
    const segments = segmentsOf(placed, 4096);
    const run = async (tags: Uint8Array) => {
      const control = new Int32Array(segmentControl(segments.length));
      const data: SnapshotOpenData = {
        file,
        memory,
        segments,
        control: control.buffer as SharedArrayBuffer,
        seal: { ...seal, tags },
      };
      const worker = new Worker(compiledBeside(import.meta.url, 'snapshot-open-worker.js'), { workerData: data });
      await new Promise((resolve) => worker.once('exit', resolve));
      return () => awaitSegments(control, segments, 1000);
    };
    (await run(seal.tags))();
    const u8 = new Uint8Array(memory.buffer);
    placed.forEach((p, i) => expect(Buffer.from(u8.subarray(p.memoryAt, p.memoryAt + p.bytes)).equals(parts[i]!)).toBe(true));
    const wrongTag = Buffer.from(seal.tags);
    wrongTag[TAG_BYTES * 4]! ^= 1; // the second part's second segment
    expect(await run(wrongTag)).toThrow(IndexIntegrityError);
  });

  it('binds each segment to its place: a segment moved to another fails its tag, the threads sharing the work or not', () => {
    const { file, layout, seal } = sealedFile('moved.seg', parts);
    const fd = openSync(file, 'r');
    try {
      const into = new Uint8Array(64 * 1024);
      const segments = segmentsOf(
        layout.map((l, i) => ({ ...l, memoryAt: i * 20_000 })),
        4096,
      );
      const control = new Int32Array(segmentControl(segments.length));
      claimSegments(control, segments, fd, into, seal);
      expect(() => awaitSegments(control, segments, 1000)).not.toThrow();
      // The second segment read where the third is: same length, another nonce.
      const swapped = segments.map((s, i) => (i === 2 ? { ...s, fileAt: segments[1]!.fileAt } : s));
      const again = new Int32Array(segmentControl(segments.length));
      claimSegments(again, swapped, fd, into, seal);
      expect(() => awaitSegments(again, segments, 1000)).toThrow(IndexIntegrityError);
    } finally {
      closeSync(fd);
    }
  });

  it('does not wait forever for a segment no thread finishes', () => {
    const control = new Int32Array(segmentControl(2));
    Atomics.store(control, 0, 2); // both claimed, never done
    const two = segmentsOf([{ fileAt: 0, memoryAt: 0, bytes: 8192 }], 4096);
    expect(() => awaitSegments(control, two, 50)).toThrow(IndexIntegrityError);
  });
});
