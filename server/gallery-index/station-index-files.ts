import { accessSync, constants, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { QuantizedIndexOptions } from '../search/index.js';
import { SEARCH_INDEX_DIR } from '../storage/index.js';

export interface IndexFileOptions {
  /** Seals the index's files (its snapshot and float rows): `searchIndexKey(dataKey)`. */
  sealKey?: Buffer;
  /** Float rows also kept in memory up to this many bytes (the index's default otherwise). */
  residentFloatBytes?: number;
  /** The stored embeddings are longer than the index's dimension: it holds their first values (QuantizedIndexOptions.prefix). */
  leadingPart?: boolean;
  /** False: the codes on 4 KiB pages (QuantizedIndexOptions.hugePages). */
  hugePages?: boolean;
  /** Tells the index files of one gallery from another's (a fleet's shared gallery: `fleet-`). */
  prefix?: string;
}

/**
 * Where a station keeps one model's index: its snapshot, and its float rows in a file per index
 * (read per re-ranked row, with a copy in memory while they fit the budget; the process holds the
 * codes). On a read-only data directory the float rows stay in memory and no snapshot is written.
 */
export function stationIndexFiles(dataDir: string, modelId: string, options: IndexFileOptions) {
  const dir = path.join(dataDir, SEARCH_INDEX_DIR);
  const writable = canWrite(dataDir, dir);
  const base = `${options.prefix ?? ''}${modelId.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  let generation = 0;
  return {
    writable,
    snapshot: path.join(dir, `${base}.snapshot`),
    storage: (): QuantizedIndexOptions => ({
      ...(writable ? { vectorFile: path.join(dir, `${base}.vectors-${generation++}`) } : {}),
      ...(options.sealKey ? { sealKey: options.sealKey } : {}),
      ...(options.residentFloatBytes !== undefined ? { residentFloatBytes: options.residentFloatBytes } : {}),
      ...(options.leadingPart ? { prefix: true } : {}),
      ...(options.hugePages === false ? { hugePages: false } : {}),
    }),
    /** Float rows of earlier runs (the live ones are inside the snapshot): never read again. */
    removeVectorFiles: () => {
      if (!writable) return;
      for (const f of readdirSync(dir)) if (f.startsWith(`${base}.vectors-`)) rmSync(path.join(dir, f), { force: true });
    },
  };
}

/** The index directory exists and can be written (a read-only mount cannot: the station still serves reads). */
function canWrite(dataDir: string, dir: string): boolean {
  try {
    accessSync(dataDir, constants.W_OK);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
