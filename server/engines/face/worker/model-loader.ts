import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';

const require = createRequire(import.meta.url);

/**
 * Node's fetch cannot read file:// URLs, so Human's models would silently fail to load; this
 * tfjs IO router reads model.json and its weight shards from disk instead. Nothing is fetched.
 */
let routerInstalled = false;
export function installFileModelRouter(): void {
  if (routerInstalled) return;
  routerInstalled = true;
  tf.io.registerLoadRouter((url) => {
    const first = Array.isArray(url) ? url[0] : url;
    // A router answers null for URLs it does not handle (the typing says otherwise).
    if (typeof first !== 'string' || !first.startsWith('file://')) return null as unknown as tf.io.IOHandler;
    const jsonPath = fileURLToPath(first);
    return {
      async load() {
        const model = JSON.parse(await readFile(jsonPath, 'utf8')) as {
          weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
        } & tf.io.ModelJSON;
        const specs: tf.io.WeightsManifestEntry[] = [];
        const shards: Buffer[] = [];
        for (const group of model.weightsManifest) {
          for (const p of group.paths) shards.push(await readFile(path.join(path.dirname(jsonPath), p)));
          specs.push(...group.weights);
        }
        const all = Buffer.concat(shards);
        const weights = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
        return tf.io.getModelArtifactsForJSONSync(model, specs, weights);
      },
    };
  });
}

export { tf };

/** Human's Node WASM build is not in the package's exports: it is loaded by path. */
export function loadHumanModule(): { Human: new (config: Record<string, unknown>) => HumanInstance } {
  const humanDir = path.dirname(path.dirname(require.resolve('@vladmandic/human')));
  return require(path.join(humanDir, 'dist', 'human.node-wasm.js')) as {
    Human: new (config: Record<string, unknown>) => HumanInstance;
  };
}

export function loadFaceApiModule(): FaceApi {
  return require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
}

export const fileUrlOfDir = (dir: string): string => `${pathToFileURL(dir).href}/`;

/** The parts of Human's result this engine reads. */
export interface HumanFace {
  box: [number, number, number, number];
  score: number;
  boxScore: number;
  faceScore: number;
  mesh: [number, number, number?][];
  annotations: Record<string, [number, number, number?][]>;
  rotation?: { angle: { roll: number; yaw: number; pitch: number } } | null;
  real?: number;
  live?: number;
  embedding?: number[];
}

export interface HumanInstance {
  load(): Promise<void>;
  detect(input: tf.Tensor, config?: Record<string, unknown>): Promise<{ face: HumanFace[]; error?: string | null }>;
  config: { face: Record<string, unknown> };
  /** The loaded networks by name (tfjs GraphModels). */
  models: { models: Record<string, unknown> };
}

export interface FaceApi {
  tf: typeof tf;
  nets: {
    faceLandmark68Net: {
      loadFromDisk(dir: string): Promise<void>;
      detectLandmarks(t: tf.Tensor3D): Promise<{ positions: { x: number; y: number }[] }>;
    };
    faceRecognitionNet: {
      loadFromDisk(dir: string): Promise<void>;
      computeFaceDescriptor(t: tf.Tensor3D): Promise<Float32Array>;
      getParamList(): { path: string; tensor: tf.Tensor }[];
    };
    ageGenderNet: {
      loadFromDisk(dir: string): Promise<void>;
      predictAgeAndGender(t: tf.Tensor3D): Promise<{ age: number; gender: 'male' | 'female'; genderProbability: number }>;
    };
    faceExpressionNet: {
      loadFromDisk(dir: string): Promise<void>;
      /** Probabilities keyed neutral, happy, sad, angry, fearful, disgusted, surprised. */
      predictExpressions(t: tf.Tensor3D): Promise<Record<string, number>>;
    };
  };
}
