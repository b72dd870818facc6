#!/usr/bin/env node
// Converts the face's networks to ONNX once, into models/onnx/ with a manifest of checksums and
// sources, from the model files scripts/install-models.js copied (it calls this last; run alone,
// it converts again). The converter is the server's own TypeScript
// (server/engines/face/native/write-networks.ts), compiled here by esbuild into one file run and
// removed at once, so that installing needs no server build.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export async function installNetworks(models = path.join(root, 'models')) {
  const { build } = await import('esbuild');
  // Inside the package, so that the bundle resolves the packages it leaves external from node_modules.
  const bundle = path.join(models, 'onnx', '.write-networks.mjs');
  await build({
    entryPoints: [path.join(root, 'server', 'engines', 'face', 'native', 'write-networks.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: bundle,
    logLevel: 'warning',
  });
  try {
    const { writeNetworkFiles } = await import(pathToFileURL(bundle).href);
    return await writeNetworkFiles(models);
  } finally {
    rmSync(bundle, { force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = await installNetworks(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stdout.write(`models/onnx/ listo (${Object.keys(manifest.networks).length} redes)\n`);
  // Human's and tfjs's WASM backend keep the event loop alive.
  process.exit(0);
}
