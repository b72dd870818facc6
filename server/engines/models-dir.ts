import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../version.js';

/** The folder `scripts/install-models.js` fills; callers (station, tests) may pass their own. */
export function defaultModelsDir(): string {
  return path.join(packageRoot(), 'models');
}

export class ModelFileMissingError extends Error {
  override name = 'ModelFileMissingError';
}

/**
 * The absolute path of a model file, checked to exist and be non-empty. Checked up front because
 * the libraries fail badly without it: zxing-wasm would fetch from a CDN, tesseract.js hangs.
 */
export function modelFile(modelsDir: string, ...parts: string[]): string {
  const file = path.resolve(modelsDir, ...parts);
  if (!existsSync(file) || statSync(file).size === 0) {
    throw new ModelFileMissingError(`falta el archivo de modelo ${file} (ejecute: node scripts/install-models.js)`);
  }
  return file;
}
