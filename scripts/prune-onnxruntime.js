#!/usr/bin/env node
// onnxruntime-node ships its library for every platform (about 210 MB); the station loads only
// this machine's, so `prepare` removes the others (electron-builder.yml filters them the same way).
//   node scripts/prune-onnxruntime.js [node_modules dir]
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const modules = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, 'node_modules');
const bin = path.join(modules, 'onnxruntime-node', 'bin', 'napi-v6');
const platform = process.env.npm_config_platform || process.platform;
const arch = process.env.npm_config_arch || process.arch;

if (existsSync(bin)) {
  const removed = [];
  for (const os of readdirSync(bin)) {
    for (const cpu of readdirSync(path.join(bin, os))) {
      if (os === platform && cpu === arch) continue;
      rmSync(path.join(bin, os, cpu), { recursive: true, force: true });
      removed.push(`${os}/${cpu}`);
    }
  }
  if (!existsSync(path.join(bin, platform, arch)))
    process.stderr.write(`onnxruntime-node no trae su biblioteca para ${platform}/${arch}\n`);
  if (removed.length) process.stdout.write(`onnxruntime-node: quitadas las bibliotecas de ${removed.join(', ')}\n`);
}
