#!/usr/bin/env node
// What the tests need from the system besides npm: Debian's Chromium (console suites), Debian's
// PostgreSQL binaries (fleet-gallery suites), an Electron binary and a display, Xvfb where the
// machine has none (real-desktop suite). Shared by
// `npm test` and `.ci/run`: `--install` installs the Debian packages where it can (root, apt-get).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function postgresBinDir() {
  for (const major of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${major}/bin`;
    if (existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

function electronBinary() {
  if (process.env.ELECTRON_PATH) return existsSync(process.env.ELECTRON_PATH) ? process.env.ELECTRON_PATH : null;
  try {
    const binary = createRequire(path.join(root, 'package.json'))('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const versionOf = (cmd, args = ['--version']) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : null;
};

/** Each requirement: where it was found (or null), and what does not run without it. */
export function systemRequirements() {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const pg = postgresBinDir();
  const electron = electronBinary();
  // A real Electron window on Linux needs a display: the session's, or a virtual X server.
  const needsDisplay = electron && process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  const xvfb = needsDisplay && spawnSync('Xvfb', ['-help']).error === undefined ? '/usr/bin/Xvfb' : null;
  return [
    {
      name: 'browser',
      debianPackage: 'chromium',
      found: existsSync(chromium) ? `${chromium} (${versionOf(chromium) ?? 'version unknown'})` : null,
      without: "e2e/console/*: the operator console's suites are skipped",
    },
    {
      name: 'database',
      debianPackage: 'postgresql',
      found: pg ? `${pg} (${versionOf(path.join(pg, 'postgres')) ?? 'version unknown'})` : null,
      without:
        'e2e/api/fleet.test.ts, server/storage/postgres/*, the PostgreSQL cases of server/storage/gallery.test.ts and server/gallery-index/fleet-index-sync.test.ts: the shared-gallery suites are skipped',
    },
    {
      name: 'desktop',
      debianPackage: null,
      found: electron,
      without: 'e2e/electron/app.test.ts: the real-Electron suite is skipped (`npm run desktop:install` adds Electron)',
    },
    ...(needsDisplay
      ? [
          {
            name: 'display',
            debianPackage: 'xvfb',
            found: xvfb ? `${xvfb} (a virtual display for the real-Electron suite)` : null,
            without: 'e2e/electron/app.test.ts: no display for the real-Electron suite',
          },
        ]
      : []),
  ];
}

const canInstall = () =>
  process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;

/** Installs the missing Debian packages where this runs as root on Debian; says so either way. */
export function installMissing(log = (line) => process.stdout.write(`${line}\n`)) {
  const missing = systemRequirements().filter((r) => !r.found && r.debianPackage);
  if (!missing.length) return;
  const packages = missing.map((r) => r.debianPackage);
  if (!canInstall()) {
    log(`not installing ${packages.join(', ')}: needs root and apt-get (run: sudo apt-get install ${packages.join(' ')})`);
    return;
  }
  log(`installing Debian's ${packages.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install =
    update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env }) : update;
  if (install.status !== 0) log(`could not install ${packages.join(', ')}`);
}

/** One line per requirement: found where, or missing and what will not run. */
export function describeRequirements() {
  return systemRequirements().map((r) =>
    r.found
      ? `${r.name}: ${r.found}`
      : `${r.name}: not found${r.debianPackage ? ` (Debian package ${r.debianPackage})` : ''} → ${r.without}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--install')) installMissing();
  for (const line of describeRequirements()) process.stdout.write(`${line}\n`);
}
