import path from 'node:path';
import { FULL_ANALYSIS } from '../analyze-options.js';
import type { FaceRuntime } from './face-runtime.js';
import { warmUp, type WarmUpReport } from '../../warm-up.js';

/** Human's own warm-up face (its src/sample.ts, MIT), written here by scripts/install-models.js. */
export const WARM_UP_FACE = path.join('warm-up', 'human-sample-face.jpg');

/** The first analysis costs about 1.5 s, the next ones less and less: three take most of it. */
export const FACE_WARM_UP_RUNS = 3;

/** Every model a request can ask for, on the warm-up face; complete when its face was described. */
export function warmUpFace(
  runtime: Pick<FaceRuntime, 'analyze'>,
  modelsDir: string,
  runs = FACE_WARM_UP_RUNS,
): Promise<WarmUpReport> {
  return warmUp(
    [path.join(modelsDir, WARM_UP_FACE)],
    async (image) => (await runtime.analyze(image, FULL_ANALYSIS)).major?.embedding != null,
    runs,
  );
}
