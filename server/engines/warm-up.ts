import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/**
 * A fresh engine worker's first requests run several times slower than later ones (V8 still
 * compiling the WebAssembly and the JavaScript, buffers allocated for the first time): the face
 * and document workers pay that on sample inputs before they report ready (docs/face-engine.md,
 * docs/dni-engine.md; measured by bench:face and eval:dni).
 */
export interface WarmUpReport {
  runs: number;
  /** Each input's time, run after run, the first (coldest) first. */
  ms: number[];
  /** False when a sample input is missing from models/ (an install that skipped a step). */
  filesFound: boolean;
  /** Runs in which every input went through the whole pipeline (a face described, a code read). */
  complete: number;
  /** The first error a sample input raised: logged, never fatal (the worker still serves). */
  error: string | null;
}

/** Runs `run` over the sample files `runs` times; `run` says whether the input went all the way. */
export async function warmUp(
  files: readonly string[],
  run: (input: Uint8Array, index: number) => Promise<boolean>,
  runs: number,
): Promise<WarmUpReport> {
  const filesFound = files.every((f) => existsSync(f));
  if (runs === 0 || !filesFound) return { runs: 0, ms: [], filesFound, complete: 0, error: null };
  const inputs = await Promise.all(files.map(async (f) => new Uint8Array(await readFile(f))));
  const ms: number[] = [];
  let complete = 0;
  let error: string | null = null;
  for (let r = 0; r < runs; r++) {
    let whole = true;
    for (const [i, input] of inputs.entries()) {
      const started = performance.now();
      try {
        whole = (await run(input, i)) && whole;
      } catch (e) {
        whole = false;
        error ??= (e as Error).message;
      }
      ms.push(Math.round(performance.now() - started));
    }
    if (whole) complete++;
  }
  return { runs, ms, filesFound, complete, error };
}
