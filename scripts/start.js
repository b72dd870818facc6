#!/usr/bin/env node
// `npm start`: the desktop app where an Electron binary is installed, otherwise the headless
// station (API + console in the browser). Arguments go to `enrolla serve`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function electronBinary() {
  try {
    const binary = createRequire(import.meta.url)('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null; // the npm package is there but its binary was never downloaded
  }
}

// V8's collector on one thread per isolate (docs/face-engine.md, "One collector thread"): its
// parallel helpers ran on the core the other face worker needs. A start flag only: set at run
// time (v8.setFlagsFromString) it aborts the process at the next full collection.
const SINGLE_THREADED_GC = '--single-threaded-gc';

const electron = process.env.ENROLLA_HEADLESS ? null : electronBinary();
const [cmd, args] = electron
  ? [electron, [`--js-flags=${SINGLE_THREADED_GC}`, path.join(root, 'dist', 'main', 'main.js')]]
  : [process.execPath, [SINGLE_THREADED_GC, path.join(root, 'bin', 'enrolla.js'), 'serve', ...process.argv.slice(2)]];
if (!electron) {
  process.stderr.write('Sin Electron en esta máquina: se inicia la estación sin ventana; abra la consola en el navegador.\n');
}
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
