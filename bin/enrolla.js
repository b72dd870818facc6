#!/usr/bin/env -S node --single-threaded-gc
// The `enrolla` command: runs the compiled CLI (npm install builds it through `prepare`). The first
// line starts Node with V8's collector on one thread, as `npm start` does (docs/face-engine.md,
// "One collector thread"): a V8 start flag, which `enrolla serve` could not set for itself.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('enrolla: falta la compilación (dist/). Ejecute `npm run build` en el paquete.\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
