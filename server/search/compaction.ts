// Compaction of the search index: the tombstoned rows dropped, the live rows recoded in order from
// their float rows (read back checked), into a fresh float store (a file renamed over the old one,
// or memory), and the gallery's sum taken afresh from the rows kept.
import { openSync, renameSync } from 'node:fs';
import { addInto } from '../matching/index.js';
import { fileStore, type IndexParts, readChecked, rowCipher, writeRow } from './index-parts.js';
import { FileVectorStore, MemoryVectorStore, type VectorStore } from './vector-store.js';

export function compact(parts: IndexParts): void {
  const table = parts.rows;
  if (table.deadRows === 0) return;
  const old = parts.vectors;
  const compactCipher = rowCipher(parts);
  const file = parts.vectorFile;
  const fresh: VectorStore =
    old instanceof FileVectorStore
      ? // Written once and reopened below (which copies it into memory if it fits).
        fileStore(parts, `${file!}.compact`, compactCipher, 0)
      : new MemoryVectorStore(parts.dim);
  let w = 0;
  // Summed afresh from the rows kept: no rounding carried over from the removals.
  const sum = new Float64Array(parts.dim);
  for (let r = 0; r < table.rowCount; r++) {
    if (table.rowSlot[r]! < 0) continue;
    const v = readChecked(parts, old, r);
    addInto(sum, v);
    if (w !== r) {
      parts.writer.load(v, false);
      writeRow(parts, w);
      table.rowSlot[w] = table.rowSlot[r]!;
      table.rowHashes[w] = table.rowHashes[r]!;
    }
    fresh.append(v);
    w++;
  }
  parts.memory.tombstoneRange(w, table.rowCount);
  table.rowCount = w;
  table.deadRows = 0;
  table.sum = sum;
  table.relink();
  old.close();
  if (fresh instanceof FileVectorStore) {
    fresh.close();
    renameSync(`${file!}.compact`, file!);
    // Reopen the renamed file as the base of a new store.
    const store = fileStore(parts, `${file!}.append`);
    store.useBase(openSync(file!, 'r+'), 0, w, compactCipher);
    parts.vectors = store;
  } else {
    parts.vectors = fresh;
  }
}
