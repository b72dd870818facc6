// A second thread for a snapshot's load (QuantizedEmbeddingIndex.loadSnapshot): it claims segments
// of the parts that go into the index's shared memory and reads (and opens) them there while the
// loading thread does the same, then exits.
import { closeSync, openSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { claimSegments, type Segment } from './snapshot-segments.js';
import type { WasmMemory } from './wasm-kernel.js';

export interface SnapshotOpenData {
  file: string;
  memory: WasmMemory;
  segments: Segment[];
  /** segmentControl's buffer. */
  control: SharedArrayBuffer;
  seal: { key: Uint8Array; base: Uint8Array; aad: Uint8Array; tags: Uint8Array } | null;
}

const data = workerData as SnapshotOpenData;
const fd = openSync(data.file, 'r');
try {
  const seal = data.seal && { ...data.seal, key: Buffer.from(data.seal.key), aad: Buffer.from(data.seal.aad) };
  claimSegments(new Int32Array(data.control), data.segments, fd, new Uint8Array(data.memory.buffer), seal);
} finally {
  closeSync(fd);
}
