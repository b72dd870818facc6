// The offline packaging check: runs electron-builder (`--dir --linux`, the same
// electron-builder.yml and afterPack hook as `npm run package`) against a stand-in Electron
// distribution, then inspects what it packaged. Nothing is downloaded: electronDist points at the
// stand-in, and native modules are not rebuilt (npmRebuild=false; the real build rebuilds them
// for Electron). The stand-in carries a real fuse wire, so the fuse hook is exercised too.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENROLLA_FUSES, readFuses, SENTINEL } from './fuses.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/** Electron's own default fuse wire (38.x): runAsNode on, cookie encryption off, ... */
const STOCK_WIRE = '10110001';

/** Hosts that appear in our built code as identifiers (XML namespaces, schema ids, error links), never fetched. */
const IDENTIFIER_HOSTS = new Set(['www.w3.org', 'json-schema.org', 'react.dev', '127.0.0.1', 'localhost']);

/**
 * What electron-builder copies from an Electron zip, minus the real binary: the executable
 * (a shell script holding a fuse wire as Electron's binary does), LICENSE, version, resources/.
 */
export function standInElectron(dir, version) {
  mkdirSync(path.join(dir, 'resources'), { recursive: true });
  mkdirSync(path.join(dir, 'locales'), { recursive: true });
  const wire = Buffer.concat([SENTINEL, Buffer.from([1, STOCK_WIRE.length]), Buffer.from(STOCK_WIRE)]);
  const script = Buffer.concat([
    Buffer.from('#!/bin/sh\n# stand-in for Electron (packaging check)\n# '),
    wire,
    Buffer.from('\n'),
  ]);
  writeFileSync(path.join(dir, 'electron'), script);
  chmodSync(path.join(dir, 'electron'), 0o755);
  writeFileSync(path.join(dir, 'LICENSE'), 'stand-in\n');
  writeFileSync(path.join(dir, 'LICENSES.chromium.html'), '<p>stand-in</p>\n');
  writeFileSync(path.join(dir, 'version'), `${version}\n`);
  writeFileSync(path.join(dir, 'resources', 'default_app.asar'), 'stand-in');
  writeFileSync(path.join(dir, 'locales', 'en-US.pak'), 'stand-in');
}

function filesUnder(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full, base) : [path.relative(base, full)];
  });
}

/** Runs the packaging into a temp dir and returns { problems, facts }; problems empty = pass. */
export async function checkPackaging({ work = mkdtempSync(path.join(tmpdir(), 'enrolla-package-')), log = () => {} } = {}) {
  const problems = [];
  const facts = { work };
  for (const built of [
    'dist/main/main.js',
    'dist/main/preload.cjs',
    'dist/server/station/index.js',
    'dist/renderer/index.html',
  ]) {
    if (!existsSync(path.join(root, built))) problems.push(`falta ${built}: ejecute npm run build`);
  }
  if (problems.length) return { problems, facts };

  const electronVersion = require('electron/package.json').version;
  const dist = path.join(work, 'electron-dist');
  standInElectron(dist, electronVersion);
  const out = path.join(work, 'out');
  const started = Date.now();
  const cli = path.join(root, 'node_modules', 'electron-builder', 'cli.js');
  const run = spawnSync(
    process.execPath,
    [cli, '--dir', '--linux', '--x64', `-c.electronDist=${dist}`, '-c.npmRebuild=false', `-c.directories.output=${out}`],
    // No network: electron-builder would only reach it to download Electron, which electronDist replaces.
    { cwd: root, encoding: 'utf8', env: { ...process.env, ELECTRON_BUILDER_OFFLINE: '1', CSC_IDENTITY_AUTO_DISCOVERY: 'false' } },
  );
  facts.seconds = (Date.now() - started) / 1000;
  log(run.stdout + run.stderr);
  if (run.status !== 0) {
    problems.push(`electron-builder terminó con ${run.status}:\n${run.stdout}\n${run.stderr}`);
    return { problems, facts };
  }

  const app = path.join(out, 'linux-unpacked');
  const resources = path.join(app, 'resources');
  const asarFile = path.join(resources, 'app.asar');
  if (!existsSync(path.join(app, 'enrolla'))) problems.push('falta el ejecutable linux-unpacked/enrolla');
  if (!existsSync(asarFile)) {
    problems.push('falta resources/app.asar (asar desactivado)');
    return { problems, facts };
  }

  // app.asar: the built app and its production dependencies, nothing else.
  const asar = require('@electron/asar');
  const entries = new Set(asar.listPackage(asarFile).map((e) => e.replaceAll('\\', '/')));
  facts.asarEntries = entries.size;
  for (const needed of [
    '/package.json',
    '/dist/main/main.js',
    '/dist/main/shell.js',
    '/dist/main/preload.cjs',
    '/dist/server/station/index.js',
    '/dist/common/envelope.js',
    '/dist/renderer/index.html',
    '/node_modules/better-sqlite3/package.json',
    '/node_modules/express/package.json',
  ]) {
    if (!entries.has(needed)) problems.push(`app.asar no contiene ${needed}`);
  }
  const leaked = [...entries].filter(
    (e) =>
      e.startsWith('/models/') ||
      e.startsWith('/dist/bench/') ||
      /^\/dist\/.*(\.test\.js|\.map)$/.test(e) ||
      e.endsWith('/test_extension.node') ||
      /^\/node_modules\/onnxruntime-node\/bin\/napi-v6\/(darwin|win32)\//.test(e) ||
      /^\/(e2e|test|renderer\/src|scripts)\//.test(e) ||
      /^\/node_modules\/(electron|electron-builder|vitest|typescript|playwright-core|vite|eslint)\//.test(e),
  );
  if (leaked.length) problems.push(`app.asar contiene lo que no debe: ${leaked.slice(0, 8).join(', ')}`);

  // Native modules: every .node file unpacked beside the archive, none left inside it.
  const insideNative = [...entries].filter((e) => e.endsWith('.node'));
  const unpacked = path.join(resources, 'app.asar.unpacked');
  const notUnpacked = insideNative.filter((e) => !existsSync(path.join(unpacked, e)));
  if (notUnpacked.length) problems.push(`módulos nativos sin desempaquetar: ${notUnpacked.join(', ')}`);
  for (const native of [
    'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    ...(process.platform === 'linux' && process.arch === 'x64'
      ? [
          'node_modules/@img/sharp-linux-x64',
          // The recognition networks' runtime: its addon and the shared library it loads.
          'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
          'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1',
          // The search index's own kernel (scripts/build-native.js), where the build machine built it.
          ...(existsSync(path.join(root, 'dist/server/search/native/search-kernels.node'))
            ? ['dist/server/search/native/search-kernels.node']
            : []),
        ]
      : []),
  ]) {
    if (!existsSync(path.join(unpacked, native))) problems.push(`falta desempaquetado: ${native}`);
  }
  facts.nativeModules = existsSync(unpacked) ? filesUnder(unpacked).filter((f) => f.endsWith('.node')) : [];

  // Models and language data as extraResources, identical to models/.
  const expected = filesUnder(path.join(root, 'models'));
  const modelsDir = path.join(resources, 'models');
  const missing = expected.filter((f) => {
    const packaged = path.join(modelsDir, f);
    return !existsSync(packaged) || statSync(packaged).size !== statSync(path.join(root, 'models', f)).size;
  });
  if (missing.length) problems.push(`resources/models incompleto: ${missing.slice(0, 8).join(', ')}`);
  facts.modelFiles = expected.length - missing.length;

  const bytesUnder = (dir) => filesUnder(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
  facts.appBytes = bytesUnder(app);
  facts.resourcesBytes = bytesUnder(resources);

  // Fuses, read back from the packaged executable.
  facts.fuses = await readFuses(path.join(app, 'enrolla'));
  for (const [name, enabled] of Object.entries(ENROLLA_FUSES)) {
    if (facts.fuses[name] !== (enabled ? 'enabled' : 'disabled')) problems.push(`fusible ${name}: ${facts.fuses[name]}`);
  }

  // Our built code names no network host beyond identifiers (the shell also cancels any
  // request off the station at run time: main/guards.ts).
  const hosts = new Set();
  for (const dir of ['main', 'server', 'common', 'renderer']) {
    // Human's own bundle carries its library defaults (a CDN model path, links in comments); the
    // capture components override every path with the station's /modelos route, and the e2e
    // capture tests assert that no request leaves the station.
    const ours = (f) => /\.(c?js|html)$/.test(f) && !/(^|\/)human\.esm-[^/]*\.js$/.test(f);
    for (const file of filesUnder(path.join(root, 'dist', dir)).filter(ours)) {
      const text = asar.extractFile(asarFile, path.join('dist', dir, file)).toString('utf8');
      for (const m of text.matchAll(/https?:\/\/([a-zA-Z0-9.-]+)/g)) if (!IDENTIFIER_HOSTS.has(m[1])) hosts.add(m[1]);
    }
  }
  if (hosts.size) problems.push(`URL de red en el código empaquetado: ${[...hosts].join(', ')}`);
  return { problems, facts };
}
