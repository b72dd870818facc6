// A worker thread that opens sealed embeddings for the store's bulk read, so that the caller's
// thread can code the previous batch into the search index meanwhile (docs/search-index.md).
import { parentPort, workerData } from 'node:worker_threads';
import { sampleAad } from '../../../crypto/sample-sealing.js';
import { open } from '../../../crypto/sealed.js';

export interface UnsealRequest {
  ids: string[];
  /** The sealed values one after the other; value i spans ends[i - 1] (or 0) to ends[i]. */
  bytes: Uint8Array;
  ends: Int32Array;
}

/**
 * The embeddings of a batch one after the other (float32; embedding i ends at float ends[i]), or
 * the person whose sample would not open.
 */
export type UnsealResponse =
  | { ok: true; floats: Float32Array; ends: Int32Array }
  | { ok: false; idPersona: string; error: string };

const port = parentPort!;
const { key } = workerData as { key: Uint8Array };
const keyBuffer = Buffer.from(key);

port.on('message', ({ ids, bytes, ends }: UnsealRequest) => {
  let i = 0;
  try {
    const plain: Buffer[] = [];
    for (; i < ids.length; i++) {
      plain.push(open(keyBuffer, bytes.subarray(i ? ends[i - 1]! : 0, ends[i]!), sampleAad(ids[i]!, 'embedding')));
    }
    const floats = new Float32Array(plain.reduce((n, p) => n + p.byteLength, 0) / 4);
    const out = new Uint8Array(floats.buffer);
    const floatEnds = new Int32Array(plain.length);
    let at = 0;
    plain.forEach((p, k) => {
      out.set(p, at);
      at += p.byteLength;
      floatEnds[k] = at / 4;
    });
    port.postMessage({ ok: true, floats, ends: floatEnds } satisfies UnsealResponse, [floats.buffer, floatEnds.buffer]);
  } catch (error) {
    port.postMessage({ ok: false, idPersona: ids[i] ?? '', error: (error as Error).message } satisfies UnsealResponse);
  }
});
