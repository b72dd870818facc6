import { closeSync, openSync, writeSync } from 'node:fs';
import type { RowCipher } from './row-cipher.js';
import { readFully } from './index-files.js';

/**
 * The exact float32 rows (L2-normalised) that re-rank the int8 shortlist, by row number. In memory
 * (chunks of rows), or on disk (`file`): then only the rows a search re-ranks are read, through
 * the OS page cache, and the process keeps the int8 matrix alone. A disk store may start from a
 * region of a snapshot file, read in place, with the rows added later appended to its own file.
 */
export interface VectorStore {
  readonly dim: number;
  readonly rows: number;
  /** The row's floats; the result may be `out` or a view into the store, valid until the next call. */
  read(row: number, out: Float32Array): Float32Array;
  /** Rows `rows`, one after another in `out` (rows.length x dim floats): a search's shortlist at once. */
  readRows(rows: ArrayLike<number>, out: Float32Array): void;
  /** Rows `from` to `from + n - 1` into `out` (a snapshot's copy of them: one read and one keystream call for them all). */
  readRange(from: number, n: number, out: Float32Array): void;
  append(vec: Float32Array): void;
  /**
   * Overwrites a row with zeros where it lies (a deleted person's floats leave no copy in the
   * index's files). The row keeps its number; it must not be read again.
   */
  erase(row: number): void;
  /** Drops every row. */
  clear(): void;
  close(): void;
}

const CHUNK_ROWS = 16384;

export class MemoryVectorStore implements VectorStore {
  private chunks: Float32Array[] = [];
  rows = 0;

  constructor(readonly dim: number) {}

  read(row: number, _out: Float32Array): Float32Array {
    const chunk = this.chunks[Math.floor(row / CHUNK_ROWS)]!;
    const at = (row % CHUNK_ROWS) * this.dim;
    return chunk.subarray(at, at + this.dim);
  }

  readRows(rows: ArrayLike<number>, out: Float32Array): void {
    for (let i = 0; i < rows.length; i++) out.set(this.read(rows[i]!, out), i * this.dim);
  }

  readRange(from: number, n: number, out: Float32Array): void {
    for (let i = 0; i < n; i++) out.set(this.read(from + i, out), i * this.dim);
  }

  append(vec: Float32Array): void {
    const c = Math.floor(this.rows / CHUNK_ROWS);
    if (c === this.chunks.length) this.chunks.push(new Float32Array(CHUNK_ROWS * this.dim));
    this.chunks[c]!.set(vec, (this.rows % CHUNK_ROWS) * this.dim);
    this.rows++;
  }

  erase(row: number): void {
    const at = (row % CHUNK_ROWS) * this.dim;
    this.chunks[Math.floor(row / CHUNK_ROWS)]?.fill(0, at, at + this.dim);
  }

  /** Appends `count` rows stored one after the other in `floats`. */
  appendMany(floats: Float32Array, count: number): void {
    for (let i = 0; i < count; i++) this.append(floats.subarray(i * this.dim, (i + 1) * this.dim));
  }

  clear(): void {
    this.chunks = [];
    this.rows = 0;
  }

  close(): void {
    this.clear();
  }
}

/**
 * Rows `row` onwards of a file region of `dim`-float rows (at `offset`, sealed under `cipher` or
 * in clear), as many as `out` holds, decrypted into it.
 */
export function readRegionRows(
  fd: number,
  offset: number,
  cipher: RowCipher | undefined,
  dim: number,
  row: number,
  out: Float32Array,
): void {
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  readFully(fd, bytes, offset + row * dim * 4);
  cipher?.apply(row, bytes, out.length / dim);
}

/**
 * The default budget of a file store's copy in memory (the station's `search.residentFloatsMB`):
 * 100,000 x 512-d (205 MB) fits, 1,000,000 x 192-d (768 MB) does not and is read from the file.
 */
export const RESIDENT_FLOATS_MIB = 256;

const PENDING_ROWS = 1024;
/** Rows copied into memory per event-loop turn: a few milliseconds at 512-d. */
const COPY_SLICE_ROWS = 1024;

/**
 * With `cipher`, the rows it writes to its file are encrypted (a base region has its own cipher,
 * given with it); the rows not yet written are kept in clear in memory only.
 *
 * While all its rows fit in `residentBytes`, a clear copy of them is also kept in memory and
 * reads come from it: at a hundred thousand rows a search's ~80 re-ranked rows cost more in
 * `pread` calls and keystream than the rest of the search. The file stays the store (snapshots,
 * erasure). Rows that arrive in bulk (a snapshot's region, rows other threads wrote) are copied
 * in the background, a slice per event-loop turn, so that a start is not held up; reads go to the
 * file until the copy is whole. A gallery that outgrows the budget drops the copy.
 */
export class FileVectorStore implements VectorStore {
  private base: { fd: number; offset: number; rows: number; cipher: RowCipher | undefined } | null = null;
  private fd: number;
  private flushed = 0;
  private pending: Float32Array;
  private pendingRows = 0;
  /** The whole copy, once there is one. */
  private resident: MemoryVectorStore | null;
  /** The copy being made, and what `settled` waits for. */
  private copying: { copy: MemoryVectorStore; done: Promise<void>; finish: () => void } | null = null;

  constructor(
    readonly dim: number,
    private readonly file: string,
    private cipher?: RowCipher,
    private readonly residentBytes = 0,
  ) {
    this.fd = openSync(file, 'w+');
    this.pending = new Float32Array(PENDING_ROWS * dim);
    this.resident = this.emptyCopy();
  }

  /** Whether the rows are read from memory (the resident copy), not from the file. */
  get inMemory(): boolean {
    return this.resident !== null;
  }

  /** Resolves when no copy is being made (it is whole, or was dropped). */
  settled(): Promise<void> {
    return this.copying?.done ?? Promise.resolve();
  }

  /** A store about to receive this many rows (a build) makes no copy that it would drop on the way. */
  expectRows(rows: number): void {
    if (!this.fits(rows)) this.dropCopy();
  }

  /** The copy of no rows, kept from the start when there is a budget. */
  private emptyCopy(): MemoryVectorStore | null {
    return this.fits(0) ? new MemoryVectorStore(this.dim) : null;
  }

  private fits(rows: number): boolean {
    return this.residentBytes > 0 && rows * this.dim * 4 <= this.residentBytes;
  }

  /** Starts copying the stored rows into memory (after a base or adopted rows), if they fit. */
  private copyToMemory(): void {
    this.dropCopy();
    if (!this.fits(this.rows)) return;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const copying = { copy: new MemoryVectorStore(this.dim), done, finish };
    this.copying = copying;
    const slice = new Float32Array(COPY_SLICE_ROWS * this.dim);
    const step = () => {
      if (this.copying !== copying) return;
      const n = Math.min(COPY_SLICE_ROWS, this.rows - copying.copy.rows);
      try {
        this.readStored(copying.copy.rows, n, slice);
      } catch {
        // A file cut short: no copy, and reads go to the file, whose checks report it.
        return this.dropCopy();
      }
      copying.copy.appendMany(slice, n);
      if (copying.copy.rows < this.rows) return void setImmediate(step);
      this.resident = copying.copy;
      this.copying = null;
      finish();
    };
    setImmediate(step);
  }

  private dropCopy(): void {
    this.resident = null;
    this.copying?.finish();
    this.copying = null;
  }

  /** Rows `from` to `from + n - 1` as stored (the base region, the file, the unwritten), decrypted, into `out`. */
  private readStored(from: number, n: number, out: Float32Array): void {
    const baseRows = this.base?.rows ?? 0;
    const into = (o: number, m: number) => out.subarray(o * this.dim, (o + m) * this.dim);
    for (let r = from, o = 0, m = 0; r < from + n; r += m, o += m) {
      if (r < baseRows) {
        m = Math.min(from + n, baseRows) - r;
        readRegionRows(this.base!.fd, this.base!.offset, this.base!.cipher, this.dim, r, into(o, m));
        continue;
      }
      const j = r - baseRows;
      if (j < this.flushed) {
        m = Math.min(from + n - r, this.flushed - j);
        readRegionRows(this.fd, 0, this.cipher, this.dim, j, into(o, m));
        continue;
      }
      m = from + n - r;
      const at = (j - this.flushed) * this.dim;
      out.set(this.pending.subarray(at, at + m * this.dim), o * this.dim);
    }
  }

  get rows(): number {
    return (this.base?.rows ?? 0) + this.flushed + this.pendingRows;
  }

  /**
   * Starts from `rows` rows stored at `offset` in an open file (a snapshot), read in place and
   * erased in place (open it for writing); the store closes it.
   */
  useBase(fd: number, offset: number, rows: number, cipher?: RowCipher): void {
    this.clear();
    this.base = { fd, offset, rows, cipher };
    this.copyToMemory();
  }

  /**
   * Where other threads may write the first rows themselves (row r at r x dim x 4, under the
   * cipher's keystream): only while the store is empty and has no base. `adopt` then counts them.
   */
  bulkTarget(): { file: string; cipher?: { key: Uint8Array; nonce: Uint8Array } } | null {
    if (this.rows !== 0 || this.base) return null;
    return { file: this.file, ...(this.cipher ? { cipher: this.cipher.shared() } : {}) };
  }

  /** Takes the `rows` rows written through bulkTarget as stored. */
  adopt(rows: number): void {
    if (this.rows !== 0 || this.base) throw new Error('filas: solo un almacén vacío adopta filas escritas aparte');
    this.flushed = rows;
    this.copyToMemory();
  }

  read(row: number, out: Float32Array): Float32Array {
    if (this.resident) return this.resident.read(row, out);
    this.readStored(row, 1, out);
    return out;
  }

  readRange(from: number, n: number, out: Float32Array): void {
    if (this.resident) return this.resident.readRange(from, n, out);
    this.readStored(from, n, out);
  }

  readRows(rows: ArrayLike<number>, out: Float32Array): void {
    if (this.resident) return this.resident.readRows(rows, out);
    const bytes = this.dim * 4;
    const baseRows = this.base?.rows ?? 0;
    // The sealed ones are decrypted together, per region: one keystream call each.
    const base: { rows: number[]; parts: Uint8Array[] } = { rows: [], parts: [] };
    const own: { rows: number[]; parts: Uint8Array[] } = { rows: [], parts: [] };
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const dest = out.subarray(i * this.dim, (i + 1) * this.dim);
      const raw = new Uint8Array(dest.buffer, dest.byteOffset, bytes);
      if (row < baseRows) {
        readFully(this.base!.fd, raw, this.base!.offset + row * bytes);
        base.rows.push(row);
        base.parts.push(raw);
        continue;
      }
      const j = row - baseRows;
      if (j >= this.flushed) {
        const at = (j - this.flushed) * this.dim;
        dest.set(this.pending.subarray(at, at + this.dim));
        continue;
      }
      readFully(this.fd, raw, j * bytes);
      own.rows.push(j);
      own.parts.push(raw);
    }
    this.base?.cipher?.applyRows(base.rows, base.parts);
    this.cipher?.applyRows(own.rows, own.parts);
  }

  erase(row: number): void {
    this.resident?.erase(row);
    // A row not copied yet is copied from the file, erased there below.
    if (this.copying && row < this.copying.copy.rows) this.copying.copy.erase(row);
    const bytes = this.dim * 4;
    const zeros = new Uint8Array(bytes);
    const baseRows = this.base?.rows ?? 0;
    if (row < baseRows) {
      writeSync(this.base!.fd, zeros, 0, bytes, this.base!.offset + row * bytes);
      return;
    }
    const j = row - baseRows;
    if (j >= this.flushed) this.pending.fill(0, (j - this.flushed) * this.dim, (j - this.flushed + 1) * this.dim);
    else writeSync(this.fd, zeros, 0, bytes, j * bytes);
  }

  append(vec: Float32Array): void {
    // A copy being made reaches the new row by itself.
    if (!this.fits(this.rows + 1)) this.dropCopy();
    else this.resident?.append(vec);
    this.pending.set(vec, this.pendingRows * this.dim);
    if (++this.pendingRows === PENDING_ROWS) this.flush();
  }

  private flush(): void {
    if (this.pendingRows === 0) return;
    const bytes = this.pendingRows * this.dim * 4;
    const raw = new Uint8Array(this.pending.buffer, 0, bytes);
    this.cipher?.apply(this.flushed, raw, this.pendingRows);
    writeSync(this.fd, raw, 0, bytes, this.flushed * this.dim * 4);
    this.flushed += this.pendingRows;
    this.pendingRows = 0;
  }

  clear(): void {
    if (this.base) closeSync(this.base.fd);
    this.base = null;
    closeSync(this.fd);
    this.fd = openSync(this.file, 'w+');
    // Rows written again from the first: never under a keystream already used.
    this.cipher = this.cipher?.renewed();
    this.flushed = 0;
    this.pendingRows = 0;
    this.dropCopy();
    this.resident = this.emptyCopy();
  }

  close(): void {
    // Idempotent: a host may close the station twice (the desktop shell on quit and on error).
    if (this.closed) return;
    this.flush();
    if (this.base) closeSync(this.base.fd);
    this.base = null;
    closeSync(this.fd);
    this.dropCopy();
    this.closed = true;
  }

  private closed = false;
}
