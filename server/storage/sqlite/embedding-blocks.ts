import { createDecipheriv } from 'node:crypto';
import { updateInto, NONCE, SealError, TAG, VERSION, seal } from '../../crypto/index.js';

/**
 * A block holds, opened, what a rebuild's range read returns for one model's samples with ids in
 * (block x BLOCK_IDS, (block + 1) x BLOCK_IDS]: their persons and embeddings in id order, sealed
 * as one value. A rebuild opens one value instead of thousands of rows, whose per-row cost is most
 * of its reading (docs/search-index.md). A block is a copy: triggers delete it with any change to
 * a sample in its range, in the same transaction, and a range without its block is read row by
 * row, so a block is never staler than the rows.
 */
export const BLOCK_IDS = 2048;

/**
 * Binds a block to its model, its place and how much of each embedding it holds (`leading`
 * values, or null: all): moved to another range or model, or relabelled, it fails to open.
 */
export function blockAad(modelId: string, block: number, leading: number | null): string {
  return `embedding_blocks/${modelId}/${block}/${leading ?? 'all'}`;
}

export interface OpenedBlock {
  /** The person of each embedding, in id order. */
  persons: string[];
  /** Embedding i ends at float ends[i] of `floats`. */
  ends: Int32Array;
  floats: Float32Array;
}

/**
 * The block's plain bytes: header length (u32), JSON header (persons, ends), padding to 4 bytes,
 * then the floats: each embedding's first `leading` values (the search index's part: a rebuild
 * reads no more), or all of them.
 */
export function sealBlock(
  key: Buffer,
  modelId: string,
  block: number,
  leading: number | null,
  persons: readonly string[],
  full: readonly Float32Array[],
): Buffer {
  const embeddings = leading === null ? full : full.map((e) => e.subarray(0, leading));
  const ends: number[] = [];
  let total = 0;
  for (const e of embeddings) ends.push((total += e.length));
  const header = Buffer.from(JSON.stringify({ persons, ends }), 'utf8');
  const floatsAt = Math.ceil((4 + header.length) / 4) * 4;
  const plain = Buffer.alloc(floatsAt + total * 4);
  plain.writeUInt32LE(header.length, 0);
  header.copy(plain, 4);
  const floats = new Float32Array(plain.buffer, plain.byteOffset + floatsAt, total);
  let at = 0;
  for (const e of embeddings) {
    floats.set(e, at);
    at += e.length;
  }
  return seal(key, plain, blockAad(modelId, block, leading));
}

/**
 * Opens a sealed block in place (its bytes are overwritten: a block is megabytes, and fresh
 * memory is slow to fault in here) and copies the floats into `floatsOf(count)`.
 */
export function openBlock(
  key: Buffer,
  modelId: string,
  block: number,
  leading: number | null,
  sealed: Uint8Array,
  floatsOf: (count: number) => Float32Array = (count) => new Float32Array(count),
): OpenedBlock {
  if (sealed.length < 1 + NONCE + TAG + 4 || sealed[0] !== VERSION) throw new SealError('bloque cifrado con formato desconocido');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + NONCE), { authTagLength: TAG });
  decipher.setAAD(Buffer.from(blockAad(modelId, block, leading), 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  const plain = sealed.subarray(1 + NONCE, sealed.length - TAG);
  updateInto(decipher, plain, plain);
  try {
    decipher.final();
  } catch {
    throw new SealError('no se pudo abrir un bloque de muestras: la clave no es la que lo cifró, o fue alterado');
  }
  const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
  const headerLength = view.getUint32(0, true);
  const { persons, ends } = JSON.parse(Buffer.from(plain.buffer, plain.byteOffset + 4, headerLength).toString('utf8')) as {
    persons: string[];
    ends: number[];
  };
  const floatsAt = Math.ceil((4 + headerLength) / 4) * 4;
  const count = ends.at(-1) ?? 0;
  const floats = floatsOf(count);
  new Uint8Array(floats.buffer, floats.byteOffset, count * 4).set(plain.subarray(floatsAt, floatsAt + count * 4));
  return { persons, ends: Int32Array.from(ends), floats };
}
