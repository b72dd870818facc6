import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../version.js';

/**
 * A worker's script: compiled JavaScript in `worker/` beside the module, or the copy in dist/ when
 * the module itself runs from TypeScript sources (tests), since a Worker cannot load .ts.
 */
export function workerScript(moduleUrl: string, name: string): string {
  return compiledBeside(moduleUrl, path.join('worker', `${name}.js`));
}

/** A module a worker thread imports (`file`, relative to the caller's module), compiled, as workerScript finds it. */
export function compiledBeside(moduleUrl: string, file: string): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.js')) return path.join(path.dirname(here), file);
  const relative = path.relative(packageRoot(), path.dirname(here));
  return path.join(packageRoot(), 'dist', relative, file);
}
