// A start-up rebuild coded on the store's threads as they open its batches: the index's side
// (the threads' side: bulk-code-sink.ts). The rows' room is reserved, each thread claims a batch's
// rows and codes them into the shared memory and the float-row file; this thread files them under
// their persons.
import { pathToFileURL } from 'node:url';
import { addInto } from '../matching/index.js';
import { type BulkTaker, compiledBeside } from '../threads/index.js';
import type { BulkCodeData, CodedBatch } from './bulk-code-sink.js';
import { type IndexParts, reserveRows } from './index-parts.js';
import { BULK_CODERS_MAX } from './index-memory.js';
import { FileVectorStore } from './vector-store.js';
import { wasmKernelModule } from './wasm-kernel.js';

/** QuantizedEmbeddingIndex.bulkLoader: handed to a gallery's whole read (GalleryFeed.readAll), then finished. */
export type BulkLoader = BulkTaker;

/**
 * `sink(atMost)` reserves the rows and gives the store what its threads need; `take` files each
 * coded batch's rows under their persons (a batch sent back as floats is added by `add` at
 * `finish`, when no thread writes any more). Null unless the index is empty and keeps its float
 * rows in a file.
 */
export function bulkLoader(parts: IndexParts, add: (id: string, embedding: Float32Array) => void): BulkLoader | null {
  const table = parts.rows;
  if (table.rowCount !== 0 || table.personCount !== 0 || !(parts.vectors instanceof FileVectorStore)) return null;
  const target = parts.vectors.bulkTarget();
  if (!target) return null;
  const counters = new SharedArrayBuffer(8);
  const later: [string[], Float32Array[]][] = [];
  let taken = 0;
  return {
    sink: (atMost) => {
      // A bound from sample ids may be far above the samples a churned store holds: reserved
      // pages stay untouched, but never more than half the memory the codes may take; the
      // batches beyond come back as floats and are added at `finish`.
      const half = Math.floor(parts.memory.maxRows / 2);
      reserveRows(parts, Math.max(32, Math.min(atMost, half)));
      const data: BulkCodeData = {
        memory: parts.memory.memory,
        coder: wasmKernelModule('row-coder'),
        layout: parts.memory.layout,
        spacesAt: parts.memory.bulkSpacesAt,
        spaces: BULK_CODERS_MAX,
        counters,
        capacity: parts.memory.capacity,
        vectorFile: target.file,
        prefix: parts.prefix,
        ...(target.cipher ? { cipher: target.cipher } : {}),
      };
      return { url: pathToFileURL(compiledBeside(import.meta.url, 'bulk-code-sink.js')).href, data };
    },
    take: (ids, embeddings, coded) => {
      if (coded === undefined) return void later.push([ids, embeddings]);
      const { start, hashes, err4, alpha2Max, sum } = coded as CodedBatch;
      addInto(table.sum, sum);
      for (let i = 0; i < ids.length; i++) {
        const row = start + i;
        const slot = table.slotIds.find(ids[i]!) ?? table.newSlot(ids[i]!);
        table.rowSlot[row] = slot;
        table.rowHashes[row] = hashes[i]!;
        table.rowErr4[row] = err4[i]!;
        table.err4Max = Math.max(table.err4Max, err4[i]!);
        table.slotSamples[slot]!++;
      }
      table.alpha2Max = Math.max(table.alpha2Max, alpha2Max);
      table.samples += ids.length;
      taken += ids.length;
    },
    finish: () => {
      const claimed = Atomics.load(new Int32Array(counters), 0);
      if (claimed !== taken) throw new Error(`índice: ${claimed} filas codificadas, ${taken} recibidas`);
      table.rowCount = claimed;
      (parts.vectors as FileVectorStore).adopt(claimed);
      table.relink();
      for (const [ids, embeddings] of later) ids.forEach((id, i) => add(id, embeddings[i]!));
    },
  };
}
