import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FULL_ANALYSIS } from '../analyze-options.js';
import type { AnalyzeOptions, FrameAnalysis, WarmUpReport } from '../types.js';

/** Human's own warm-up face (its src/sample.ts, MIT), written here by scripts/install-models.js. */
export const WARM_UP_FACE = path.join('warm-up', 'human-sample-face.jpg');

/**
 * A fresh worker's first analyses run several times slower than later ones (V8 still compiling
 * the WebAssembly and the JavaScript, buffers allocated for the first time). Three runs take most
 * of that cost before the worker takes requests (docs/face-engine.md, measured by bench:face).
 */
export const WARM_UP_RUNS = 3;

/** Runs the analysis on the warm-up face before the worker reports ready. */
export async function warmUp(
  analyze: (image: Uint8Array, options: AnalyzeOptions) => Promise<FrameAnalysis>,
  modelsDir: string,
  runs = WARM_UP_RUNS,
): Promise<WarmUpReport> {
  const file = path.join(modelsDir, WARM_UP_FACE);
  const faceFound = existsSync(file);
  if (runs === 0 || !faceFound) return { runs: 0, ms: [], faceFound, described: 0 };
  const image = new Uint8Array(await readFile(file));
  const ms: number[] = [];
  let described = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const analysis = await analyze(image, FULL_ANALYSIS);
    ms.push(Math.round(performance.now() - started));
    if (analysis.major?.embedding) described++;
  }
  return { runs, ms, faceFound, described };
}
