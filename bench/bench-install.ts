// npm run bench:install
// What a station installs: the production dependencies (`npm ci --omit=dev` in a scratch copy of
// the manifest and lock file, other platforms' onnxruntime removed as `prepare` does) and the packaged app (electron-builder --dir with a stand-in
// Electron, so Electron's own runtime is not counted); writes bench/results/install-size.json.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { checkPackaging as CheckPackaging } from '../scripts/packaging/check.js';
import { packageRoot } from '../server/version.js';
import { printTable } from './lib/metrics.js';

const root = packageRoot();
// Loaded from the repository's scripts/, which the build does not copy into dist/.
const { checkPackaging } = (await import(pathToFileURL(path.join(root, 'scripts', 'packaging', 'check.js')).href)) as {
  checkPackaging: typeof CheckPackaging;
};
const MB = 2 ** 20;

function bytesUnder(dir: string): number {
  let sum = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) sum += bytesUnder(full);
    else if (e.isFile()) sum += statSync(full).size;
  }
  return sum;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'enrolla-install-'));
try {
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) cpSync(path.join(root, file), path.join(scratch, file));
  // The lock file's local packages (file: links) must resolve as they do in the repository.
  for (const local of ['no-peer', 'tfjs-umbrella'])
    cpSync(path.join(root, 'scripts', local), path.join(scratch, 'scripts', local), { recursive: true });
  const install = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: scratch,
    encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`npm ci --omit=dev: ${install.stderr}`);
  const modules = path.join(scratch, 'node_modules');
  const installed = bytesUnder(modules);
  const prune = spawnSync(process.execPath, [path.join(root, 'scripts', 'prune-onnxruntime.js'), modules], { encoding: 'utf8' });
  if (prune.status !== 0) throw new Error(`prune-onnxruntime: ${prune.stderr}`);
  const omitDev = bytesUnder(modules);
  const models = bytesUnder(path.join(root, 'models'));
  const { problems, facts } = await checkPackaging();
  rmSync(facts.work, { recursive: true, force: true });
  if (problems.length) throw new Error(`packaging: ${problems.join('; ')}`);
  const result = {
    omit_dev_mb: Math.round(omitDev / MB),
    omit_dev_other_platforms_onnxruntime_mb: Math.round((installed - omitDev) / MB),
    models_mb: Math.round(models / MB),
    station_mb: Math.round((omitDev + models) / MB),
    packaged_app_mb: Math.round(facts.resourcesBytes! / MB),
    packaged_note:
      "electron-builder --dir for linux-x64; resources/ only (the app, its dependencies, models), Electron's runtime not counted",
    node: process.version,
    measured_at: new Date().toISOString(),
  };
  printTable([result]);
  const out = path.join(root, 'bench', 'results', 'install-size.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`Escrito ${path.relative(root, out)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
