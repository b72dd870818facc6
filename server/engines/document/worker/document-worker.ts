// Entry of the document-engine worker thread: card localisation, PDF417 and MRZ off the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { ImageDecodeError } from '../../../imaging/index.js';
import { exitWhenAsked } from '../../worker-exit.js';
import { CardSideReader } from '../read-card-side.js';
import type { DocumentRequest, DocumentResponse, DocumentWorkerStatus } from './document-types.js';
import { DOCUMENT_WARM_UP_RUNS, warmUpCards } from './warm-up-cards.js';

const port = parentPort!;
exitWhenAsked(port);
const { modelsDir, warmUp } = workerData as { modelsDir: string; warmUp: boolean };

try {
  const reader = new CardSideReader(modelsDir);
  await reader.ready();
  const warmedUp = await warmUpCards(reader, modelsDir, warmUp ? DOCUMENT_WARM_UP_RUNS : 0);
  port.on('message', (request: DocumentRequest) => {
    if (request.type === 'crash') process.exit(70);
    // A card's sides at once: while one waits for its OCR thread, the other decodes its barcode.
    let failedFrame = -1;
    Promise.all(
      request.images.map((image, i) =>
        reader.read(image, request.options[i]!).catch((error: unknown) => {
          if (failedFrame < 0) failedFrame = i;
          throw error;
        }),
      ),
    ).then(
      (result) =>
        port.postMessage(
          { id: request.id, ok: true, result } satisfies DocumentResponse,
          result.map((r) => r.rectifiedJpeg.buffer as ArrayBuffer),
        ),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          ok: false,
          error: (error as Error).message,
          kind: error instanceof ImageDecodeError ? 'image' : 'engine',
          frameIndex: Math.max(0, failedFrame),
        } satisfies DocumentResponse),
    );
  });
  port.postMessage({ type: 'ready', warmUp: warmedUp } satisfies DocumentWorkerStatus);
} catch (error) {
  port.postMessage({ type: 'failed', error: (error as Error).message } satisfies DocumentWorkerStatus);
  process.exit(0); // the exit request's listener would keep a thread with nothing to do alive
}
