#!/usr/bin/env node
// The `enrolla` command: runs the compiled CLI (npm install builds it through `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('enrolla: falta la compilación (dist/). Ejecute `npm run build` en el paquete.\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
