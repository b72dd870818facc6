import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { modelFile } from '../../models-dir.js';

export class OcrWorkerStartError extends Error {
  override name = 'OcrWorkerStartError';
}

export interface LocalWorkerOptions {
  /** Folder holding `<lang>.traineddata` (or `.gz` with gzip). */
  langDir: string;
  lang: string;
  gzip: boolean;
  /** createWorker never settles when language data fails to load; give up after this. */
  timeoutMs?: number;
}

/**
 * Rejects a language file tesseract could not load, before tesseract tries: tesseract.js 7 answers a
 * failed initialisation with a reject *and then* a resolve for the same job, and the second message
 * throws an uncaught TypeError from its message handler, which would take the station down.
 * Plain traineddata starts with an int32 entry count and that many int64 offsets (-1 = absent).
 */
export function checkTraineddata(file: string, gzip: boolean): void {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const head = Buffer.alloc(Math.min(size, 4 + 8 * 64));
    readSync(fd, head, 0, head.length, 0);
    if (gzip) {
      if (head[0] === 0x1f && head[1] === 0x8b) return;
      throw new OcrWorkerStartError(`${file} no es un archivo gzip`);
    }
    const n = head.length >= 4 ? head.readInt32LE(0) : 0;
    const tableEnd = 4 + 8 * n;
    let ok = n > 0 && n <= 64 && size > tableEnd && head.length >= tableEnd;
    let last = tableEnd - 1;
    for (let i = 0; ok && i < n; i++) {
      const off = Number(head.readBigInt64LE(4 + 8 * i));
      if (off === -1) continue;
      ok = off > last && off < size;
      last = off;
    }
    if (!ok) throw new OcrWorkerStartError(`${file} no es un traineddata de tesseract válido`);
  } finally {
    closeSync(fd);
  }
}

/**
 * A tesseract.js worker that touches only local files: traineddata from `langDir` (a path, so it is
 * read with fs, never fetched), no cache read from or written to the working directory, worker script
 * and core wasm from node_modules (tesseract.js's Node default).
 */
export async function createLocalWorker(options: LocalWorkerOptions): Promise<Worker> {
  // The existence check is the real guard: a missing file makes tesseract.js try a CDN and then hang.
  checkTraineddata(modelFile(options.langDir, `${options.lang}.traineddata${options.gzip ? '.gz' : ''}`), options.gzip);
  const timeoutMs = options.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  let failLoad: (e: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    failLoad = reject;
    timer = setTimeout(
      () => reject(new OcrWorkerStartError(`el OCR (${options.lang}) no arrancó en ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const starting = createWorker(options.lang, OEM.LSTM_ONLY, {
    langPath: options.langDir,
    gzip: options.gzip,
    cacheMethod: 'none',
    // Without a handler a failed load throws from the worker's message handler (uncaught); with it,
    // the createWorker promise never settles, so the handler fails the race instead.
    errorHandler: (e: unknown) => failLoad(new OcrWorkerStartError(`el OCR (${options.lang}) falló al cargar: ${String(e)}`)),
  });
  try {
    return await Promise.race([starting, failed]);
  } catch (error) {
    // If it starts after all, do not leave its thread running.
    void starting.then((w) => w.terminate()).catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
