// The search index's snapshot file (format ENRIDX09, docs/search-index.md "Snapshot files and
// sealing"): a 128-byte header, the caller's label, the ids, the gallery's sum, each row's person,
// hash and error bound, the scales and codes as they lie in memory, the segments' tags, then the
// float32 rows. Sealed: everything after the label AES-256-GCM in segments (snapshot-segments.ts),
// the float rows AES-256-CTR; in clear, a CRC-32 over everything but the float rows.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, renameSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { CIPHER_PIECE_BYTES } from '../crypto/index.js';
import { compiledBeside } from '../threads/index.js';
import { IndexIntegrityError, readFully, writeFully } from './index-files.js';
import { type IndexParts, reserveRows } from './index-parts.js';
import { align } from './index-memory.js';
import { RowCipher } from './row-cipher.js';
import { packSlotIds } from './slot-ids.js';
import type { SnapshotOpenData } from './snapshot-open-worker.js';
import {
  awaitSegments,
  claimSegments,
  readSegment,
  type Segment,
  segmentControl,
  segmentCount,
  type SegmentSeal,
  segmentsOf,
  TAG_BYTES,
  validSegmentBytes,
  writeSealedSegment,
} from './snapshot-segments.js';
import { FileVectorStore, type MemoryVectorStore, readRegionRows } from './vector-store.js';

const SNAPSHOT_MAGIC = 'ENRIDX09';
/** How long a load waits for a segment its helper thread claimed (a 4 MiB segment takes about 20 ms at 1M). */
const SNAPSHOT_HELPER_WAIT_MS = 30_000;
/**
 * 0-55: magic, dimensions, counts, the segment size (32), the two error maxima; 56: CRC-32 (in
 * clear; sealed, each segment's tag checks the parts instead); sealed snapshots: 64 the GCM nonce
 * (12 bytes) the segments' are made from, 92 the float rows' CTR nonce (8), 100 the flag 1.
 */
const SNAPSHOT_HEADER = 128;

/**
 * Writes the rows to `file` (through a temporary file, fsync and a rename), labelled `label` (the
 * caller's, e.g. the gallery version it matches), in segments of `segmentBytes`. The index is
 * compacted first (no tombstones are saved).
 */
export function saveSnapshot(parts: IndexParts, file: string, label: string, segmentBytes: number): void {
  const table = parts.rows;
  const m = parts.memory;
  const rows = table.rowCount;
  const slotIndex = new Map<number, number>();
  const ids: string[] = [];
  const person = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    const slot = table.rowSlot[r]!;
    let p = slotIndex.get(slot);
    if (p === undefined) {
      p = ids.length;
      slotIndex.set(slot, p);
      ids.push(table.slotIds.get(slot)!);
    }
    person[r] = p;
  }
  const labelBytes = Buffer.from(label, 'utf8');
  const idBytes = packSlotIds(ids);
  const layout = snapshotLayout(parts.pairs, parts.dpad, parts.dim, rows, labelBytes.length, idBytes.length, segmentBytes);
  const buffer = m.memory.buffer;
  const sections: [Uint8Array, number][] = [
    [labelBytes, layout.label],
    [idBytes, layout.ids],
    [new Uint8Array(table.sum.buffer), layout.sum],
    [new Uint8Array(person.buffer), layout.person],
    [new Uint8Array(table.rowHashes.buffer, 0, rows * 4), layout.hashes],
    [new Uint8Array(table.rowErr4.buffer, 0, rows * 4), layout.errs],
    [new Uint8Array(buffer, m.scales2At, rows * 4), layout.scales2],
    [new Uint8Array(buffer, m.scales4At, rows * 4), layout.scales4],
    [new Uint8Array(buffer, m.errs2At, rows * 4), layout.errs2],
    [new Uint8Array(buffer, m.fsAt, layout.fsBytes), layout.fs],
    [new Uint8Array(buffer, m.codesAt, (rows * parts.dpad) / 2), layout.codes],
  ];
  const header = Buffer.alloc(SNAPSHOT_HEADER);
  header.write(SNAPSHOT_MAGIC, 0, 'latin1');
  header.writeUInt32LE(parts.dim, 8);
  // The first pass in the high byte: it decides which codes the snapshot holds.
  header.writeUInt32LE(parts.dpad | (parts.firstMode << 24), 12);
  header.writeUInt32LE(rows, 16);
  header.writeUInt32LE(ids.length, 20);
  header.writeUInt32LE(idBytes.length, 24);
  header.writeUInt32LE(labelBytes.length, 28);
  header.writeUInt32LE(segmentBytes, 32);
  // Bytes 36-39: unused (zero).
  header.writeDoubleLE(table.err4Max, 40);
  header.writeDoubleLE(table.alpha2Max, 48);
  // Sealed: everything after the label under GCM, in segments (snapshot-segments.ts) whose tags
  // precede the float rows (the header's first part and the label, which stays readable for
  // snapshotLabel, authenticated with each), the float rows under CTR.
  const seal = parts.sealKey ? snapshotSeal(parts.sealKey, header) : null;
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFully(fd, labelBytes, layout.label);
    if (seal) {
      const aad = Buffer.concat([header.subarray(0, 56), labelBytes]);
      const piece = new Uint8Array(CIPHER_PIECE_BYTES);
      const tags = Buffer.alloc(layout.segments * TAG_BYTES);
      const sealed = sections.slice(1);
      for (const s of segmentsOf(
        sealed.map(([bytes, at]) => ({ fileAt: at, memoryAt: 0, bytes: bytes.length })),
        segmentBytes,
      )) {
        const clear = sealed[s.part]![0].subarray(s.memoryAt, s.memoryAt + s.length);
        writeSealedSegment(fd, seal.key, seal.nonce, aad, s.n, clear, s.fileAt, piece).copy(tags, s.n * TAG_BYTES);
      }
      writeFully(fd, tags, layout.tags);
    } else {
      // In clear, a CRC-32 over every part and the header's first part (sealed, the tags check them).
      let crc = 0;
      for (const [bytes] of sections) crc = crc32(bytes, crc);
      header.writeUInt32LE(crc32(header.subarray(0, 56), crc) >>> 0, 56);
      for (const [bytes, at] of sections.slice(1)) writeFully(fd, bytes, at);
    }
    writeFully(fd, header, 0);
    const chunkRows = 1024;
    const dim = parts.dim;
    const chunk = new Float32Array(chunkRows * dim);
    for (let i = 0; i < rows; i += chunkRows) {
      const n = Math.min(chunkRows, rows - i);
      parts.vectors.readRange(i, n, chunk);
      const raw = new Uint8Array(chunk.buffer, 0, n * dim * 4);
      seal?.rows.apply(i, raw, n);
      writeFully(fd, raw, layout.floats + i * dim * 4);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** The label a snapshot was saved with, or null when `file` is not a snapshot. */
export function snapshotLabel(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const header = Buffer.alloc(SNAPSHOT_HEADER);
    if (readSync(fd, header, 0, SNAPSHOT_HEADER, 0) < SNAPSHOT_HEADER) return null;
    if (header.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC) return null;
    const label = Buffer.alloc(header.readUInt32LE(28));
    if (readSync(fd, label, 0, label.length, SNAPSHOT_HEADER) < label.length) return null;
    return label.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the index's contents with a snapshot's, checking its seal or CRC (IndexIntegrityError
 * when it fails). With a vector file, the float rows are read in place from the snapshot.
 */
export function loadSnapshot(parts: IndexParts, file: string): void {
  const table = parts.rows;
  const m = parts.memory;
  // Writable when its float rows become the disk store's base: a deletion zeroes them there.
  const fd = openSync(file, parts.vectors instanceof FileVectorStore ? 'r+' : 'r');
  let keepFd = false;
  try {
    const header = Buffer.alloc(SNAPSHOT_HEADER);
    readFully(fd, header, 0);
    if (header.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC)
      throw new IndexIntegrityError(`${file}: no es una instantánea del índice`);
    const dim = header.readUInt32LE(8);
    const dpad = header.readUInt32LE(12) & 0xffffff;
    const firstMode = header.readUInt32LE(12) >>> 24;
    const rows = header.readUInt32LE(16);
    const persons = header.readUInt32LE(20);
    const idLength = header.readUInt32LE(24);
    const labelLength = header.readUInt32LE(28);
    if (dim !== parts.dim || dpad !== parts.dpad || firstMode !== parts.firstMode)
      throw new IndexIntegrityError(`${file}: dimensión ${dim}, el índice es de ${parts.dim}`);
    if (idLength > 2 ** 30 || labelLength > 2 ** 20 || rows > 2 ** 28)
      throw new IndexIntegrityError(`${file}: instantánea dañada`);
    const segmentBytes = header.readUInt32LE(32);
    if (!validSegmentBytes(segmentBytes)) throw new IndexIntegrityError(`${file}: instantánea dañada`);
    const layout = snapshotLayout(parts.pairs, dpad, dim, rows, labelLength, idLength, segmentBytes);
    const sealed = header[100] === 1;
    if (sealed !== (parts.sealKey !== undefined))
      throw new IndexIntegrityError(`${file}: ${sealed ? 'sellada, y el índice no tiene la clave' : 'sin sellar'}`);
    const label = Buffer.alloc(labelLength);
    readFully(fd, label, layout.label);
    let seal: SegmentSeal | null = null;
    if (parts.sealKey) {
      const tags = Buffer.alloc(layout.segments * TAG_BYTES);
      readFully(fd, tags, layout.tags);
      seal = { key: parts.sealKey, base: header.subarray(64, 76), aad: Buffer.concat([header.subarray(0, 56), label]), tags };
    }
    // Reset, then fill the memory straight from the file.
    table.clearPersons();
    // Room for the enrollments after the start: growing a million rows' codes moves them all, a
    // stall the first enrollment after the load would wait for.
    reserveRows(parts, rows + loadHeadroom(rows));
    const buffer = m.memory.buffer;
    const idBytes = Buffer.alloc(idLength);
    // In the order they were written (and their segments numbered): this thread's arrays (the row
    // arrays, reserved for `rows`), then the shared memory's.
    const sum = new Float64Array(dim);
    const own: [Uint8Array, number][] = [
      [idBytes, layout.ids],
      [new Uint8Array(sum.buffer), layout.sum],
      [new Uint8Array(table.rowSlot.buffer, 0, rows * 4), layout.person],
      [new Uint8Array(table.rowHashes.buffer, 0, rows * 4), layout.hashes],
      [new Uint8Array(table.rowErr4.buffer, 0, rows * 4), layout.errs],
    ];
    const shared = [
      { memoryAt: m.scales2At, fileAt: layout.scales2, bytes: rows * 4 },
      { memoryAt: m.scales4At, fileAt: layout.scales4, bytes: rows * 4 },
      { memoryAt: m.errs2At, fileAt: layout.errs2, bytes: rows * 4 },
      { memoryAt: m.fsAt, fileAt: layout.fs, bytes: layout.fsBytes },
      { memoryAt: m.codesAt, fileAt: layout.codes, bytes: (rows * dpad) / 2 },
    ];
    const ownSegments = segmentsOf(
      own.map(([bytes, at]) => ({ fileAt: at, memoryAt: 0, bytes: bytes.length })),
      segmentBytes,
    );
    const sharedSegments = segmentsOf(shared, segmentBytes, ownSegments.length);
    const control = new Int32Array(segmentControl(sharedSegments.length));
    // A second thread for the shared memory's segments while this one reads its own.
    const helper = sharedSegments.length > 1 ? snapshotHelper(parts, file, sharedSegments, control, seal) : null;
    try {
      for (const segment of ownSegments) readSegment(fd, own[segment.part]![0], segment, seal);
      claimSegments(control, sharedSegments, fd, new Uint8Array(buffer), seal);
      awaitSegments(control, sharedSegments, SNAPSHOT_HELPER_WAIT_MS);
      if (!seal) {
        let crc = crc32(label);
        for (const [bytes] of own) crc = crc32(bytes, crc);
        for (const p of shared) crc = crc32(new Uint8Array(buffer, p.memoryAt, p.bytes), crc);
        if (crc32(header.subarray(0, 56), crc) >>> 0 !== header.readUInt32LE(56))
          throw new IndexIntegrityError(`${file}: la instantánea no pasa su suma de control`);
      }
    } catch (error) {
      m.tombstoneRange(0, rows);
      throw error instanceof IndexIntegrityError ? error : new IndexIntegrityError(`${file}: ${(error as Error).message}`);
    } finally {
      void helper?.terminate();
    }
    try {
      table.slotIds.unpack(idBytes, persons);
    } catch {
      throw new IndexIntegrityError(`${file}: instantánea dañada`);
    }
    m.tombstoneRange(rows, m.capacity);
    table.rowCount = rows;
    table.samples = rows;
    table.slotsFromRows(persons + loadHeadroom(persons));
    table.sum = sum;
    table.err4Max = header.readDoubleLE(40);
    table.alpha2Max = header.readDoubleLE(48);
    parts.vectors.clear();
    const rowsCipher = parts.sealKey ? new RowCipher(parts.sealKey, header.subarray(92, 100), dim * 4) : undefined;
    if (parts.vectors instanceof FileVectorStore) {
      parts.vectors.useBase(fd, layout.floats, rows, rowsCipher);
      keepFd = true;
    } else {
      const store = parts.vectors as MemoryVectorStore;
      const chunkRows = 4096;
      const chunk = new Float32Array(chunkRows * dim);
      for (let i = 0; i < rows; i += chunkRows) {
        const n = Math.min(chunkRows, rows - i);
        readRegionRows(fd, layout.floats, rowsCipher, dim, i, chunk.subarray(0, n * dim));
        store.appendMany(chunk, n);
      }
    }
  } finally {
    if (!keepFd) closeSync(fd);
  }
}

/** A thread that reads (and opens) `segments` of a snapshot into the shared memory beside the loading one. */
function snapshotHelper(
  parts: IndexParts,
  file: string,
  segments: Segment[],
  control: Int32Array,
  seal: SegmentSeal | null,
): Worker | null {
  const data: SnapshotOpenData = {
    file,
    memory: parts.memory.memory,
    segments,
    control: control.buffer as SharedArrayBuffer,
    seal: seal && {
      key: new Uint8Array(seal.key),
      base: new Uint8Array(seal.base),
      aad: new Uint8Array(seal.aad),
      tags: seal.tags,
    },
  };
  try {
    const worker = new Worker(compiledBeside(import.meta.url, 'snapshot-open-worker.js'), { workerData: data });
    worker.unref();
    // Whatever it leaves unclaimed this thread reads; a segment it claimed and never finished fails the load.
    worker.on('error', () => undefined);
    return worker;
  } catch {
    return null;
  }
}

/**
 * A snapshot's sealing: fresh nonces written into `header` (the segments' GCM at 64, the rows' CTR
 * at 92, the flag at 100).
 */
function snapshotSeal(key: Buffer, header: Buffer) {
  const nonce = randomBytes(12);
  nonce.copy(header, 64);
  const rows = RowCipher.fresh(key, header.readUInt32LE(8) * 4);
  rows.nonce.copy(header, 92);
  header[100] = 1;
  return { key, nonce, rows };
}

function snapshotLayout(
  pairs: number,
  dpad: number,
  dim: number,
  rows: number,
  labelBytes: number,
  idBytes: number,
  segmentBytes: number,
) {
  const label = SNAPSHOT_HEADER;
  const ids = label + labelBytes;
  const sum = align(ids + idBytes, 64);
  const person = align(sum + dim * 8, 64);
  const hashes = person + rows * 4;
  const errs = hashes + rows * 4;
  const scales2 = errs + rows * 4;
  const scales4 = scales2 + rows * 4;
  const errs2 = scales4 + rows * 4;
  const fs = align(errs2 + rows * 4, 64);
  const fsBytes = (align(rows, 32) * pairs) / 2;
  const codes = align(fs + fsBytes, 64);
  const segments = segmentCount([idBytes, dim * 8, ...Array<number>(6).fill(rows * 4), fsBytes, (rows * dpad) / 2], segmentBytes);
  // A sealed snapshot's segment tags (zeros in clear), before the float rows: those end the file.
  const tags = align(codes + (rows * dpad) / 2, 64);
  const floats = align(tags + segments * TAG_BYTES, 64);
  return { label, ids, sum, person, hashes, errs, scales2, scales4, errs2, fs, fsBytes, codes, tags, segments, floats };
}

/** Rows (or persons) a snapshot's load reserves beyond what it holds: a sixteenth, at least 1,024. */
function loadHeadroom(count: number): number {
  return Math.max(1024, Math.ceil(count / 16));
}
