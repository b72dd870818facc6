import { readSync, writeSync } from 'node:fs';

/** Thrown when stored data do not match their checksums: the caller rebuilds from the source of truth. */
export class IndexIntegrityError extends Error {
  override name = 'IndexIntegrityError';
}

/** `into.length` bytes from `position`; a file that ends first is an index file cut short. */
export function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, Math.min(into.length - done, 1 << 30), position + done);
    if (n <= 0) throw new IndexIntegrityError('archivo del índice truncado');
    done += n;
  }
}

export function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, Math.min(bytes.length - done, 1 << 30), position + done);
}
