import { Worker } from 'node:worker_threads';
import { workerScript } from '../../engines/worker-pool.js';
import { StoreError } from '../store.js';
import type { UnsealRequest, UnsealResponse } from './worker/unseal-worker.js';

/** Samples per batch. */
const BATCH = 2048;

export interface SealedEmbeddingRow {
  id: number;
  id_persona: string;
  embedding: Uint8Array;
}

/**
 * Reads sealed embeddings page by page (`page(after, limit)`: the rows with id above `after`, in
 * id order) and opens them on a worker thread, two batches in flight: while the worker opens one,
 * the caller's `visit` codes the one before. Paging keeps no statement open across the awaits.
 */
export async function streamUnsealed(
  key: Buffer,
  page: (after: number, limit: number) => SealedEmbeddingRow[],
  visit: (ids: string[], embeddings: Float32Array[]) => void,
): Promise<void> {
  const worker = new Worker(workerScript(import.meta.url, 'unseal-worker'), { workerData: { key: new Uint8Array(key) } });
  // The worker answers in the order it is asked: one queue of batches, oldest first.
  const waiting: ((reply: UnsealResponse) => void)[] = [];
  const inFlight: { ids: string[]; reply: Promise<UnsealResponse> }[] = [];
  let gone: string | null = null;
  const failAll = (message: string) => {
    gone ??= message;
    for (const resolve of waiting.splice(0)) resolve({ ok: false, idPersona: '', error: message });
  };
  worker.on('message', (reply: UnsealResponse) => waiting.shift()?.(reply));
  worker.on('error', (error) => failAll(error.message));
  worker.on('exit', () => failAll('el hilo que abre las muestras terminó'));
  const send = (ids: string[], bytes: Uint8Array<ArrayBuffer>, ends: Int32Array<ArrayBuffer>) => {
    const reply = new Promise<UnsealResponse>((resolve) => {
      if (gone) return resolve({ ok: false, idPersona: '', error: gone });
      waiting.push(resolve);
      worker.postMessage({ ids, bytes, ends } satisfies UnsealRequest, [bytes.buffer, ends.buffer]);
    });
    inFlight.push({ ids, reply });
  };
  const codeOldest = async () => {
    const { ids, reply } = inFlight.shift()!;
    const answer = await reply;
    if (!answer.ok) throw new StoreError(`Muestra de ${answer.idPersona || '?'} ilegible: ${answer.error}.`, 'unavailable');
    const { floats, ends } = answer;
    visit(
      ids,
      Array.from(ends, (end, i) => floats.subarray(i ? ends[i - 1]! : 0, end)),
    );
  };
  try {
    for (let after = 0; ; ) {
      const rows = page(after, BATCH);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      const ends = new Int32Array(rows.length);
      let total = 0;
      rows.forEach((r, i) => (ends[i] = total += r.embedding.byteLength));
      const bytes = new Uint8Array(total);
      rows.forEach((r, i) => bytes.set(r.embedding, i ? ends[i - 1]! : 0));
      send(
        rows.map((r) => r.id_persona),
        bytes,
        ends,
      );
      if (inFlight.length > 1) await codeOldest();
    }
    while (inFlight.length > 0) await codeOldest();
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
