// Entry of the document-engine worker thread: card localisation, PDF417 and MRZ off the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { ImageDecodeError } from '../../../imaging/decode-image.js';
import { CardSideReader } from '../read-card-side.js';
import type { DocumentRequest, DocumentResponse } from './document-types.js';

const port = parentPort!;
const { modelsDir } = workerData as { modelsDir: string };

try {
  const reader = new CardSideReader(modelsDir);
  await reader.ready();
  port.on('message', (request: DocumentRequest) => {
    if (request.type === 'crash') process.exit(70);
    reader.read(request.image, request.options).then(
      (result) =>
        port.postMessage({ id: request.id, ok: true, result } satisfies DocumentResponse, [
          result.rectifiedJpeg.buffer as ArrayBuffer,
        ]),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          ok: false,
          error: (error as Error).message,
          kind: error instanceof ImageDecodeError ? 'image' : 'engine',
        } satisfies DocumentResponse),
    );
  });
  port.postMessage({ type: 'ready' });
} catch (error) {
  port.postMessage({ type: 'failed', error: (error as Error).message });
}
