// Entry of one face-engine worker thread: loads the models once, then analyzes frames on request.
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerRequest, WorkerResponse, WorkerStatus } from '../types.js';
import { ImageDecodeError } from '../../../imaging/index.js';
import { IdleWorkers } from '../../idle-workers.js';
import { exitWhenAsked } from '../../worker-exit.js';
import type { NetworkRuntimeSetting } from '../native/descriptor-nets.js';
import { FACE_MODEL_ID, FaceRuntime } from './face-runtime.js';
import { FACE_WARM_UP_RUNS, warmUpFace } from './warm-up-face.js';

const port = parentPort!;
exitWhenAsked(port);
const {
  modelsDir,
  warmUp: warm,
  networkRuntime,
  idleWorkers,
} = workerData as {
  modelsDir: string;
  warmUp: boolean;
  networkRuntime: NetworkRuntimeSetting;
  /** The pool's count of idle workers (idle-workers.ts); absent: never borrow a core. */
  idleWorkers: SharedArrayBuffer | null;
};

try {
  const runtime = await FaceRuntime.load(modelsDir, networkRuntime, idleWorkers ? new IdleWorkers(idleWorkers) : null);
  const warmedUp = await warmUpFace(runtime, modelsDir, warm ? FACE_WARM_UP_RUNS : 0);
  port.on('message', (request: WorkerRequest) => {
    if (request.type === 'crash') process.exit(70); // fault injection for the pool's tests
    runtime.analyze(request.image, request.options).then(
      (result) => {
        const transfer = [result.frameJpeg, result.major?.thumbnail, result.major?.portrait, result.major?.embedding]
          .filter((b): b is Uint8Array | Float32Array => b != null)
          .map((b) => b.buffer as ArrayBuffer);
        port.postMessage({ id: request.id, ok: true, result } satisfies WorkerResponse, transfer);
      },
      (error: unknown) => {
        const kind = error instanceof ImageDecodeError ? 'image' : 'engine';
        port.postMessage({ id: request.id, ok: false, error: (error as Error).message, kind } satisfies WorkerResponse);
      },
    );
  });
  const { runtime: where, fallbackReason, borrowsIdleCores } = runtime.descriptors;
  port.postMessage({
    type: 'ready',
    modelId: FACE_MODEL_ID,
    warmUp: warmedUp,
    descriptors: { runtime: where, fallbackReason, borrowsIdleCores },
    analysis: runtime.analysis,
  } satisfies WorkerStatus);
} catch (error) {
  port.postMessage({ type: 'failed', error: (error as Error).message } satisfies WorkerStatus);
  process.exit(0); // the exit request's listener would keep a thread with nothing to do alive
}
