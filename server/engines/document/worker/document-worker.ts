// Entry of the document-engine worker thread: card localisation, PDF417 and MRZ off the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { ImageDecodeError } from '../../../imaging/decode-image.js';
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
  port.postMessage({ type: 'ready', warmUp: warmedUp } satisfies DocumentWorkerStatus);
} catch (error) {
  port.postMessage({ type: 'failed', error: (error as Error).message } satisfies DocumentWorkerStatus);
  process.exit(0); // the exit request's listener would keep a thread with nothing to do alive
}
