#!/usr/bin/env node
// The one test command: typecheck, lint, format, build, then every test (unit, API, CLI,
// console in Chromium). Each static check counts as one test in the closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRequirements, installMissing } from './system-packages.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const extraArgs = process.argv.slice(2);

const checks = [
  ['typecheck (server, common, main)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['typecheck (renderer)', bin('tsc'), ['-p', 'renderer/tsconfig.json', '--noEmit']],
  ['lint (incl. layering)', bin('eslint'), ['.']],
  ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
  ['build', 'npm', ['run', '--silent', 'build']],
];

// What the suites need from the system, installed as .ci/run does where this runs as root on
// Debian; otherwise named, with what will not run.
process.stdout.write('== system\n');
installMissing();
for (const line of describeRequirements()) process.stdout.write(`${line}\n`);

let passed = 0;
let failed = 0;
const failures = [];
for (const [name, cmd, args] of checks) {
  process.stdout.write(`\n== ${name}\n`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status === 0) passed++;
  else {
    failed++;
    failures.push(name);
  }
}

const report = path.join(root, 'test-results', 'vitest.json');
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });
process.stdout.write('\n== tests\n');
spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...extraArgs], {
  cwd: root,
  stdio: 'inherit',
});
let skipped = 0;
const skippedFiles = new Map();
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, 'utf8'));
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + results.numTodoTests;
  // A file that fails to load has no tests counted: count it as one failure.
  for (const file of results.testResults) {
    // A file that fails to load, or whose beforeAll/afterAll hook fails, has no failed test
    // counted: count the file as one failure.
    if (file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed')) {
      failed++;
      failures.push(path.relative(root, file.name));
    }
  }
  for (const file of results.testResults) {
    for (const t of file.assertionResults) if (t.status === 'failed') failures.push(t.fullName);
    const skips = file.assertionResults.filter((t) => t.status === 'pending' || t.status === 'skipped' || t.status === 'todo');
    if (skips.length) skippedFiles.set(path.relative(root, file.name), skips.length);
  }
} else {
  failed++;
  failures.push('vitest produced no report');
}

if (failures.length) process.stdout.write(`\nFailed:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
if (skippedFiles.size)
  process.stdout.write(
    `\nSkipped (the system lines above say why):\n${[...skippedFiles].map(([f, n]) => `  - ${f}: ${n}`).join('\n')}\n`,
  );
const skippedNames = [...skippedFiles.keys()].map((f) => path.basename(f, '.test.ts'));
process.stdout.write(
  `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped (${skippedNames.join(', ')})` : ''}\n`,
);
process.exitCode = failed === 0 ? 0 : 1;
