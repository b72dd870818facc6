import { createCipheriv, createDecipheriv } from 'node:crypto';
import { updateInto } from '../crypto/index.js';
import { IndexIntegrityError, readFully, writeFully } from './index-files.js';

/**
 * A snapshot's parts are read in segments of this size by default (the size is in its header),
 * and, sealed, each segment is its own AES-256-GCM message, so that a load reads and opens them on
 * two threads (snapshot-open-worker.ts): at 1M rows the load is bound by faulting in fresh memory,
 * for the codes and for the cipher's output, and two threads fault in parallel.
 */
export const SEGMENT_BYTES = 4 << 20;

/** A segment size a header may give: a power of two from 4 KiB to 1 GiB. */
export function validSegmentBytes(n: number): boolean {
  return n >= 4096 && n <= 2 ** 30 && (n & (n - 1)) === 0;
}

/** A sealed segment's GCM tag. */
export const TAG_BYTES = 16;

/** One segment: `length` bytes at `fileAt` in the file, at `memoryAt` in its destination. */
export interface Segment {
  /** Its number in the snapshot: it makes the segment's nonce (segmentNonce). */
  n: number;
  /** Which of the parts given to `segmentsOf` it belongs to. */
  part: number;
  fileAt: number;
  memoryAt: number;
  length: number;
}

/** The segments of `parts`, in order, numbered from `first`. */
export function segmentsOf(
  parts: readonly { fileAt: number; memoryAt: number; bytes: number }[],
  segmentBytes: number,
  first = 0,
): Segment[] {
  const out: Segment[] = [];
  let n = first;
  parts.forEach((p, part) => {
    for (let off = 0; off < p.bytes; off += segmentBytes) {
      out.push({
        n: n++,
        part,
        fileAt: p.fileAt + off,
        memoryAt: p.memoryAt + off,
        length: Math.min(segmentBytes, p.bytes - off),
      });
    }
  });
  return out;
}

/** How many segments parts of these sizes make. */
export function segmentCount(sizes: readonly number[], segmentBytes: number): number {
  return sizes.reduce((n, bytes) => n + Math.ceil(bytes / segmentBytes), 0);
}

/** The snapshot's nonce with its last 32 bits XOR the segment's number: unique per segment. */
export function segmentNonce(base: Uint8Array, n: number): Buffer {
  const nonce = Buffer.from(base);
  nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ n) >>> 0, 8);
  return nonce;
}

/** Seals `bytes` as segment `n` and writes it at `fileAt`; returns its tag. */
export function writeSealedSegment(
  fd: number,
  key: Buffer,
  base: Uint8Array,
  aad: Buffer,
  n: number,
  bytes: Uint8Array,
  fileAt: number,
  piece: Uint8Array,
): Buffer {
  const gcm = createCipheriv('aes-256-gcm', key, segmentNonce(base, n)).setAAD(aad);
  for (let off = 0; off < bytes.length; off += piece.length) {
    const clear = bytes.subarray(off, off + piece.length);
    const sealed = piece.subarray(0, clear.length);
    updateInto(gcm, clear, sealed);
    writeFully(fd, sealed, fileAt + off);
  }
  gcm.final();
  return gcm.getAuthTag();
}

/** What opens a sealed snapshot's segments: the key, the snapshot's nonce, the associated data, every segment's tag by number. */
export interface SegmentSeal {
  key: Buffer;
  base: Uint8Array;
  aad: Buffer;
  tags: Uint8Array;
}

/**
 * Reads segment `s` into `into` (its bytes at s.memoryAt), opening it in place when sealed.
 * IndexIntegrityError when its tag does not hold.
 */
export function readSegment(fd: number, into: Uint8Array, s: Segment, seal: SegmentSeal | null): void {
  const bytes = into.subarray(s.memoryAt, s.memoryAt + s.length);
  readFully(fd, bytes, s.fileAt);
  if (!seal) return;
  const open = createDecipheriv('aes-256-gcm', seal.key, segmentNonce(seal.base, s.n)).setAAD(seal.aad);
  open.setAuthTag(seal.tags.subarray(s.n * TAG_BYTES, (s.n + 1) * TAG_BYTES));
  updateInto(open, bytes, bytes);
  try {
    open.final();
  } catch {
    bytes.fill(0);
    throw new IndexIntegrityError(`instantánea: el segmento ${s.n} no pasa su sello`);
  }
}

/** Int32 control of a parallel load: [0] the next segment to claim, then each segment's state. */
const PENDING = 0;
const DONE = 1;
const FAILED = 2;

export function segmentControl(count: number): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * (1 + count));
}

/**
 * Claims segments of `segments` one at a time from `control` (shared by the threads that load)
 * and reads them into `into`, marking each done or failed. Returns when none is left to claim.
 */
export function claimSegments(
  control: Int32Array,
  segments: readonly Segment[],
  fd: number,
  into: Uint8Array,
  seal: SegmentSeal | null,
): void {
  for (;;) {
    const i = Atomics.add(control, 0, 1);
    if (i >= segments.length) return;
    let state = DONE;
    try {
      readSegment(fd, into, segments[i]!, seal);
    } catch {
      state = FAILED;
    }
    Atomics.store(control, 1 + i, state);
    Atomics.notify(control, 1 + i);
  }
}

/**
 * Waits until every one of `segments` is done (another thread may still be on one):
 * IndexIntegrityError if one failed or they were not all done within `timeoutMs`.
 */
export function awaitSegments(control: Int32Array, segments: readonly Segment[], timeoutMs: number): void {
  const until = performance.now() + timeoutMs;
  for (let i = 0; i < segments.length; i++) {
    while (Atomics.load(control, 1 + i) === PENDING) {
      const left = until - performance.now();
      if (left <= 0 || Atomics.wait(control, 1 + i, PENDING, left) === 'timed-out')
        throw new IndexIntegrityError('instantánea: el hilo que la abría no terminó');
    }
    if (Atomics.load(control, 1 + i) === FAILED)
      throw new IndexIntegrityError(`instantánea: el segmento ${segments[i]!.n} no se pudo abrir`);
  }
}
