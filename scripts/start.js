#!/usr/bin/env node
// `npm start`: the desktop app where an Electron binary is installed and a display is there,
// otherwise the headless station (API + console in the browser), saying which and why.
// Arguments go to `enrolla serve`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function electronVersion() {
  return JSON.parse(readFileSync(path.join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
}

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

/** The desktop window's Electron, or why the station starts without one. */
function desktop() {
  if (process.env.ENROLLA_HEADLESS) return { why: 'ENROLLA_HEADLESS está definido' };
  const binary = electronBinary();
  if (!binary) return { why: 'Electron no está instalado (npm run desktop:install lo agrega; docs/desktop.md)' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return { why: 'no hay pantalla (DISPLAY y WAYLAND_DISPLAY vacíos)' };
  return { binary };
}

const { binary: electron, why } = desktop();
const [cmd, args] = electron
  ? [electron, [`--js-flags=${SINGLE_THREADED_GC}`, path.join(root, 'dist', 'main', 'main.js')]]
  : [process.execPath, [SINGLE_THREADED_GC, path.join(root, 'bin', 'enrolla.js'), 'serve', ...process.argv.slice(2)]];
process.stderr.write(
  electron
    ? `Enrolla de escritorio (Electron ${electronVersion()}): se abre la ventana de la estación.\n`
    : `Enrolla sin ventana, porque ${why}: abra la consola del operador en el navegador.\n`,
);
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
