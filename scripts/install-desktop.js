#!/usr/bin/env node
// Installs Electron's binary for the desktop window: npm never runs Electron's own install step
// (package.json `allowScripts`), so `prepare` runs this one, which may fail without failing npm.
//   node scripts/install-desktop.js            download it (npm run desktop:install); exit 1 if it cannot
//   node scripts/install-desktop.js --optional the same from `prepare`: one line and exit 0 on failure
//   node scripts/install-desktop.js --zip FILE an Electron zip brought by hand (air-gapped sites)
//   node scripts/install-desktop.js --where    the zip's name, checksum and the cache path it is looked for at
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(path.join(root, 'package.json'));
const args = process.argv.slice(2);
const optional = args.includes('--optional');
const zipArg = args.includes('--zip') ? args[args.indexOf('--zip') + 1] : null;

let electronDir;
try {
  electronDir = path.dirname(require.resolve('electron/package.json'));
} catch {
  // A production install (npm ci --omit=dev): no desktop package at all.
  if (!optional) process.stderr.write('El paquete electron no está instalado (npm ci sin --omit=dev).\n');
  process.exit(optional ? 0 : 1);
}
const version = JSON.parse(readFileSync(path.join(electronDir, 'package.json'), 'utf8')).version;
const platform = process.env.npm_config_platform || process.platform;
const arch = process.env.npm_config_arch || process.arch;
const zipName = `electron-v${version}-${platform}-${arch}.zip`;

/** Where @electron/get looks for the zip before downloading it: <cache>/<sha256 of the release URL>/<zip>. */
function electronCachePath(cacheRoot = defaultElectronCache()) {
  const releaseUrl = `https://github.com/electron/electron/releases/download/v${version}`;
  return path.join(cacheRoot, createHash('sha256').update(releaseUrl).digest('hex'), zipName);
}

function defaultElectronCache() {
  if (process.env.electron_config_cache) return process.env.electron_config_cache;
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'electron');
  if (process.platform === 'win32')
    return path.join(process.env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'), 'electron', 'Cache');
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'electron');
}

function installedBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const expected = JSON.parse(readFileSync(path.join(electronDir, 'checksums.json'), 'utf8'))[zipName];

if (args.includes('--where')) {
  process.stdout.write(`${zipName}\nSHA-256 ${expected}\n${electronCachePath()}\n`);
  process.exit(0);
}

if (installedBinary()) {
  process.stdout.write(`Escritorio: Electron ${version} ya instalado (${installedBinary()}).\n`);
  process.exit(0);
}

if (zipArg) {
  const sha = createHash('sha256').update(readFileSync(zipArg)).digest('hex');
  if (sha !== expected) {
    process.stderr.write(`${zipArg}: SHA-256 ${sha}; Electron ${version} espera ${expected} para ${zipName}.\n`);
    process.exit(1);
  }
  const target = electronCachePath();
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(zipArg, target);
}

// Electron's own installer: takes the zip from its cache, or downloads it, checks it against
// checksums.json and unpacks it into node_modules/electron/dist.
const run = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
  cwd: electronDir,
  encoding: 'utf8',
  timeout: 15 * 60_000,
});
if (run.status === 0 && installedBinary()) {
  process.stdout.write(`Escritorio instalado: Electron ${version} (${installedBinary()}); npm start abre la ventana.\n`);
  process.exit(0);
}
const reason = `${run.error?.message ?? ''}${run.stderr ?? ''}`.match(
  /(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|HTTPError[^\n]*|[^\n]*Error[^\n]*)/,
)?.[0];
process.stdout.write(
  `Escritorio no instalado: no se pudo obtener Electron ${version} (${reason ?? `salida ${run.status}`}); ` +
    `la estación funciona sin ventana. Para agregarlo: npm run desktop:install, o sin red ${zipName} ` +
    `(SHA-256 ${expected}) con npm run desktop:install -- --zip ARCHIVO (docs/desktop.md).\n`,
);
process.exit(optional ? 0 : 1);
