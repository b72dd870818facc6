#!/usr/bin/env node
// `npm run package:check`: the packaging configuration verified offline (scripts/packaging/check.js).
import { rmSync } from 'node:fs';
import { checkPackaging } from './packaging/check.js';

const verbose = process.argv.includes('--verbose');
const { problems, facts } = await checkPackaging({ log: verbose ? (t) => process.stdout.write(t) : undefined });
process.stdout.write(
  [
    `electron-builder --dir --linux (Electron sustituto, sin red): ${facts.seconds ?? '-'} s`,
    `app.asar: ${facts.asarEntries ?? '-'} entradas; módulos nativos desempaquetados: ${(facts.nativeModules ?? []).join(', ') || '-'}`,
    `resources/models: ${facts.modelFiles ?? '-'} archivos`,
    `fusibles: ${JSON.stringify(facts.fuses ?? {})}`,
    '',
  ].join('\n'),
);
if (!process.argv.includes('--keep')) rmSync(facts.work, { recursive: true, force: true });
else process.stdout.write(`resultado en ${facts.work}\n`);
if (problems.length) {
  process.stdout.write(`\nPROBLEMAS:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exitCode = 1;
} else process.stdout.write('empaquetado: OK\n');
