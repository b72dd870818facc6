import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultModelsDir } from '../face-engine.js';
import {
  FACE_NETWORKS,
  NETWORKS_MANIFEST,
  NetworkFileError,
  ONNX_DIR,
  readNetworkFile,
  readNetworksManifest,
  sha256,
} from './network-files.js';
import { writeNetworkFiles } from './write-networks.js';

const models = defaultModelsDir();
const scratch = mkdtempSync(path.join(tmpdir(), 'enrolla-networks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the converted networks', () => {
  it('are listed with their checksum and the package, licence and checksummed files they came from', () => {
    const manifest = readNetworksManifest(models);
    expect(Object.keys(manifest.networks).sort()).toEqual([...FACE_NETWORKS].sort());
    for (const name of FACE_NETWORKS) {
      const entry = manifest.networks[name];
      expect(sha256(readNetworkFile(models, name))).toBe(entry.sha256);
      expect(entry.source.license).toBe('MIT');
      expect(entry.source.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(entry.source.files.length).toBeGreaterThan(0);
      // The files the station loads beside them are the ones they were converted from.
      for (const file of entry.source.files) expect(sha256(readFileSync(path.join(models, file.path)))).toBe(file.sha256);
    }
  });

  it('are what the converters write today from the installed models (an install is not stale)', async () => {
    const written = await writeNetworkFiles(models, path.join(scratch, 'fresh'));
    expect(written.networks).toEqual(readNetworksManifest(models).networks);
  }, 120_000);

  it('are refused when a file is not the one installed, or is missing, saying how to install them', () => {
    const dir = path.join(scratch, 'models');
    mkdirSync(path.join(dir, ONNX_DIR), { recursive: true });
    copyFileSync(path.join(models, ONNX_DIR, NETWORKS_MANIFEST), path.join(dir, ONNX_DIR, NETWORKS_MANIFEST));
    const liveness = readFileSync(path.join(models, ONNX_DIR, 'human-liveness.onnx'));
    liveness.writeUInt8(liveness.readUInt8(liveness.length - 1) ^ 1, liveness.length - 1);
    writeFileSync(path.join(dir, ONNX_DIR, 'human-liveness.onnx'), liveness);
    expect(() => readNetworkFile(dir, 'human-liveness')).toThrow(NetworkFileError);
    expect(() => readNetworkFile(dir, 'human-liveness')).toThrow(/sha256 distinto; ejecute: node scripts\/install-models\.js/);
    expect(() => readNetworkFile(dir, 'mobilefacenet')).toThrow(
      /falta el archivo de modelo .*mobilefacenet\.onnx \(ejecute: node scripts\/install-models\.js\)/,
    );
  });
});
