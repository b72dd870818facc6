#!/usr/bin/env node
// Builds the search index's kernels, from sources in server/search, beside the compiled server:
// - its WebAssembly kernels (server/search/kernels/*.wat) with wabt's wat2wasm (a devDependency, run
//   here, in JavaScript: no toolchain) into dist/server/search/kernels/*.wasm. They are needed: a
//   failure fails the build. scan-kernel.wat gives two modules: scan-kernel.wasm, and
//   scan-kernel-relaxed.wasm with every i8x16.swizzle written as i8x16.relaxed_swizzle;
// - its native kernels (server/search/native/search-kernels.c) with the machine's C compiler against
//   Node's own headers: nothing is downloaded. Where they cannot be built (no compiler or headers,
//   not x86-64), it says so and the index scans with its WebAssembly kernel, which gives the same
//   answers (server/search/native-kernels.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(root, 'server', 'search', 'native', 'search-kernels.c');
// Beside the compiled server, so that packaging takes it with dist/server and unpacks it (*.node).
const target = path.join(root, 'dist', 'server', 'search', 'native', 'search-kernels.node');

const kernelsSource = path.join(root, 'server', 'search', 'kernels');
const kernelsTarget = path.join(root, 'dist', 'server', 'search', 'kernels');

async function buildWasm() {
  const wabt = await wabtInit();
  mkdirSync(kernelsTarget, { recursive: true });
  for (const file of readdirSync(kernelsSource).filter((f) => f.endsWith('.wat'))) {
    const name = path.basename(file, '.wat');
    const text = readFileSync(path.join(kernelsSource, file), 'utf8');
    const variants = [[name, text]];
    if (name === 'scan-kernel') variants.push([`${name}-relaxed`, text.replaceAll('i8x16.swizzle', 'i8x16.relaxed_swizzle')]);
    for (const [out, wat] of variants) {
      const parsed = wabt.parseWat(file, wat, { simd: true, threads: true, relaxed_simd: true });
      try {
        writeFileSync(path.join(kernelsTarget, `${out}.wasm`), parsed.toBinary({}).buffer);
      } finally {
        parsed.destroy();
      }
    }
  }
}

await buildWasm();

function headers() {
  const candidates = [
    process.env.npm_config_nodedir && path.join(process.env.npm_config_nodedir, 'include', 'node'),
    path.join(path.dirname(process.execPath), '..', 'include', 'node'),
    '/usr/include/node',
  ];
  return candidates.find((dir) => dir && existsSync(path.join(dir, 'node_api.h')));
}

function skip(why) {
  rmSync(target, { force: true });
  console.warn(`build-native: search-kernels not built (${why}); the search index uses its WebAssembly kernel`);
  process.exit(0);
}

if (process.arch !== 'x64') skip(`${process.arch} is not x86-64`);
const include = headers();
if (!include) skip("Node's headers (node_api.h) not found");
mkdirSync(path.dirname(target), { recursive: true });
const cc = process.env.CC || 'cc';
// -ffp-contract=off: no fused multiply-add, so each score rounds as the WebAssembly kernel's does.
const args = ['-O3', '-fPIC', '-shared', '-ffp-contract=off', '-Wall', '-I', include, '-o', target, source];
const result = spawnSync(cc, args, { stdio: 'inherit' });
if (result.error) skip(`${cc}: ${result.error.message}`);
// A failed compile is not a failed build: the station runs on the WebAssembly kernel, and the
// index's tests fail where the native one was expected (x86-64 with AVX2) and is missing.
if (result.status !== 0) skip(`${cc} failed with exit code ${result.status}`);
