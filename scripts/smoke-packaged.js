#!/usr/bin/env node
// `npm run package:smoke`, the release check after `npm run package`: starts the unpacked app
// (release/linux-unpacked/enrolla; on Linux without a display, under a virtual X server from
// Debian's xvfb), waits for the station's "estación lista" line, enrolls and verifies one person
// through the API with the console's own token, then quits. Exit 0 only if all of it worked.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { _electron } from 'playwright-core';
import { enrollAndVerify } from './packaging/smoke-checks.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const UNPACKED = {
  linux: 'release/linux-unpacked/enrolla',
  win32: 'release/win-unpacked/Enrolla.exe',
  darwin: 'release/mac/Enrolla.app/Contents/MacOS/Enrolla',
};
const executable = path.join(root, process.argv[2] ?? UNPACKED[process.platform] ?? UNPACKED.linux);
const say = (line) => process.stdout.write(`${line}\n`);
if (!existsSync(executable)) {
  say(`No está ${path.relative(root, executable)}: ejecute antes npm run package.`);
  process.exit(1);
}

let xvfb = null;
const env = { ...process.env };
if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
  if (spawnSync('Xvfb', ['-help']).error) {
    say("Sin pantalla ni Xvfb: instale el paquete de Debian 'xvfb' o ejecute con una pantalla.");
    process.exit(1);
  }
  env.DISPLAY = ':97';
  xvfb = spawn('Xvfb', [env.DISPLAY, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
}

const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-humo-'));
const started = Date.now();
let app;
let failed = [];
try {
  app = await _electron.launch({
    executablePath: executable,
    // A build machine has no keyring: the plaintext backend, allowed only by this documented override.
    args: [`--user-data-dir=${dir}`, '--password-store=basic'],
    env: { ...env, ENROLLA_DATA_DIR: path.join(dir, 'station'), ENROLLA_ALLOW_PLAINTEXT_SECRETS: '1' },
    timeout: 120_000,
  });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('la estación no dijo "estación lista" en 180 s')), 180_000);
    app.process().stdout.on('data', (chunk) => {
      if (String(chunk).includes('estación lista')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await ready;
  say(`estación lista en ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const page = await app.firstWindow();
  await page.waitForLoadState('domcontentloaded');
  const { encodeTemplate } = await import(pathToFileURL(path.join(root, 'dist', 'common', 'uitemplate', 'index.js')).href);
  const face = async (file) =>
    encodeTemplate({
      kind: 'face',
      frames: [{ data: new Uint8Array(readFileSync(path.join(root, 'test', 'fixtures', file))) }],
      device: { kind: 'file' },
    });
  const templates = {
    enrol: await face('fr-obama.jpg'),
    again: await face('fr-obama2.jpg'),
    stranger: await face('fr-rose_leslie1.jpg'),
  };
  // Through the console's page: its origin is the station, its token the bridge's.
  const post = (p, body) =>
    page.evaluate(
      async ([url, payload]) => {
        const { token } = globalThis.enrolla;
        const res = await fetch(url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(payload),
        });
        return res.json();
      },
      [p, body],
    );
  failed = await enrollAndVerify(post, templates);
} catch (error) {
  failed.push(error.message);
} finally {
  await app?.close().catch(() => undefined);
  xvfb?.kill();
  rmSync(dir, { recursive: true, force: true });
}
if (failed.length) {
  say(`HUMO FALLIDO:\n${failed.map((f) => `  - ${f}`).join('\n')}`);
  process.exitCode = 1;
} else say(`humo: OK (enrolada, verificada y una extraña rechazada en ${((Date.now() - started) / 1000).toFixed(1)} s)`);
