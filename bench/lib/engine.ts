import { readFileSync } from 'node:fs';
import {
  type AnalyzeOptions,
  defaultModelsDir,
  FaceEngine,
  type FrameAnalysis,
  MATCHING_ANALYSIS,
} from '../../server/engines/index.js';

export const ANALYZE_FOR_EVAL: AnalyzeOptions = { ...MATCHING_ANALYSIS, majorPolicy: 'largest' };

export function startEngine(): FaceEngine {
  return FaceEngine.start({ modelsDir: defaultModelsDir(), maxQueue: 10_000, taskTimeoutMs: 120_000 });
}

/** Analyzes files with the engine's workers in parallel, reporting progress on stderr. */
export async function analyzeFiles(
  engine: FaceEngine,
  files: readonly string[],
  options: AnalyzeOptions,
): Promise<(FrameAnalysis | null)[]> {
  let done = 0;
  return Promise.all(
    files.map(async (file) => {
      try {
        return await engine.analyzeImage(readFileSync(file), options);
      } catch {
        return null;
      } finally {
        if (++done % 50 === 0) process.stderr.write(`  ${done}/${files.length}\n`);
      }
    }),
  );
}
