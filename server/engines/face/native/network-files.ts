import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { modelFile } from '../../models-dir.js';

/** Where `scripts/install-models.js` writes the converted networks, under the models folder. */
export const ONNX_DIR = 'onnx';
export const NETWORKS_MANIFEST = 'manifest.json';

/**
 * The face's networks as onnxruntime runs them, each converted once, at install, from the file its
 * package ships (native/write-networks.ts).
 */
export const HUMAN_NETWORKS = ['blazeface', 'facemesh', 'iris', 'antispoof', 'liveness'] as const;
export type HumanNetwork = (typeof HUMAN_NETWORKS)[number];
export const FACE_NETWORKS = [
  'mobilefacenet',
  'faceapi-resnet',
  'faceapi-landmarks68',
  'faceapi-age-gender',
  'faceapi-expression',
  ...HUMAN_NETWORKS.map((key) => `human-${key}` as const),
] as const;
export type FaceNetwork = (typeof FACE_NETWORKS)[number];

/** One converted network in the manifest: its file and checksum, and what it was converted from. */
export interface NetworkEntry {
  file: string;
  sha256: string;
  bytes: number;
  converter: string;
  source: { package: string; version: string; license: string; files: { path: string; sha256: string }[] };
}

export interface NetworksManifest {
  generatedBy: string;
  networks: Record<FaceNetwork, NetworkEntry>;
}

export class NetworkFileError extends Error {
  override name = 'NetworkFileError';
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A converted network's ONNX bytes, checked against the manifest's checksum: a file changed or cut
 * short since install would otherwise load, or fail, inside onnxruntime with no word of which.
 */
export function readNetworkFile(modelsDir: string, name: FaceNetwork): Uint8Array {
  const manifest = readNetworksManifest(modelsDir);
  const entry = manifest.networks[name];
  if (!entry)
    throw new NetworkFileError(
      `${ONNX_DIR}/${NETWORKS_MANIFEST} no lista la red ${name} (ejecute: node scripts/install-models.js)`,
    );
  const bytes = readFileSync(modelFile(modelsDir, ONNX_DIR, entry.file));
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (sha256(view) !== entry.sha256)
    throw new NetworkFileError(
      `la red ${entry.file} no es la que se instaló (sha256 distinto; ejecute: node scripts/install-models.js)`,
    );
  return view;
}

export function readNetworksManifest(modelsDir: string): NetworksManifest {
  return JSON.parse(readFileSync(modelFile(modelsDir, ONNX_DIR, NETWORKS_MANIFEST), 'utf8')) as NetworksManifest;
}

export const networkFileName = (name: FaceNetwork): string => `${name}.onnx`;

/** A source file's path as the manifest records it: relative to the models folder. */
export const sourcePath = (modelsDir: string, file: string): string => path.relative(modelsDir, file).split(path.sep).join('/');
