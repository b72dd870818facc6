import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeOnnxModel } from '../../onnx/onnx-writer.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { packageRoot } from '../../../version.js';
import { defaultModelsDir } from '../face-engine.js';
import { FaceRuntime } from '../worker/face-runtime.js';
import { tf, type FaceApi } from '../worker/model-loader.js';
import { faceApiNetsOnNative } from './faceapi-nets.js';
import { humanGraphsOnNative, NATIVE_HUMAN_GRAPHS } from './human-graphs.js';
import { readNetworkFile, type FaceNetwork } from './network-files.js';
import { tfjsGraphToOnnx, type TfGraphNode } from './tfjs-graph-onnx.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const ints = (...i: number[]) => ({ list: { i: i.map(String) } });
const node = (name: string, op: string, input: string[], attr: TfGraphNode['attr'] = {}): TfGraphNode => ({
  name,
  op,
  input,
  attr,
});
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
};

beforeAll(async () => {
  // Human's runtime sets tfjs's WASM backend up: the reference every graph is checked against.
  await FaceRuntime.load(defaultModelsDir(), 'wasm');
}, 120_000);

describe('tfjs graph to ONNX', () => {
  // Odd sizes and strides 2, where TensorFlow's SAME pads one pixel more after than before, and a
  // padding, a concatenation and a reshape that only come out right in TensorFlow's channel order.
  it('computes what tfjs computes for every op it converts', () => {
    const seeded = (shape: number[], seed: number) => tf.randomUniform(shape, -1, 1, 'float32', seed);
    const c = {
      w1: seeded([3, 3, 3, 4], 1),
      b1: seeded([4], 2),
      a1: seeded([1, 1, 4], 3),
      dw: seeded([3, 3, 4, 1], 4),
      w2: seeded([1, 1, 6, 6], 5),
      b2: seeded([6], 6),
      pads: tf.tensor2d([0, 0, 1, 0, 0, 1, 0, 2], [4, 2], 'int32'),
      axis: tf.scalar(-1, 'int32'),
      shape: tf.tensor1d([1, -1, 3], 'int32'),
    };
    const topology: TfGraphNode[] = [
      node('x', 'Placeholder', [], { shape: { shape: { dim: [1, 9, 9, 3].map((size) => ({ size: String(size) })) } } } as never),
      ...Object.keys(c).map((k) => node(k, 'Const', [])),
      node('conv', '_FusedConv2D', ['x', 'w1', 'b1', 'a1'], {
        fused_ops: { list: { s: [b64('BiasAdd'), b64('Prelu')] } },
        num_args: { i: '2' },
        strides: ints(1, 2, 2, 1),
        padding: { s: b64('SAME') },
      }),
      node('dw', 'DepthwiseConv2dNative', ['conv', 'dw'], { strides: ints(1, 2, 2, 1), padding: { s: b64('SAME') } }),
      node('pool', 'MaxPool', ['conv'], { ksize: ints(1, 2, 2, 1), strides: ints(1, 2, 2, 1), padding: { s: b64('SAME') } }),
      node('sum', 'AddV2', ['dw', 'pool']),
      node('relu', 'Relu', ['sum']),
      node('padded', 'Pad', ['relu', 'pads']),
      node('pw', '_FusedConv2D', ['padded', 'w2', 'b2'], {
        fused_ops: { list: { s: [b64('BiasAdd'), b64('Relu')] } },
        num_args: { i: '1' },
        strides: ints(1, 1, 1, 1),
        padding: { s: b64('VALID') },
      }),
      node('joined', 'ConcatV2', ['padded', 'pw', 'axis']),
      node('sig', 'Sigmoid', ['joined']),
      node('flat', 'Reshape', ['sig', 'shape']),
      node('out', 'Identity', ['flat']),
    ];
    const graph = tfjsGraphToOnnx(
      topology,
      (name) => {
        const t = c[name as keyof typeof c];
        return t ? { shape: t.shape, data: t.dataSync() as Float32Array | Int32Array } : undefined;
      },
      ['out', 'pool'],
    );
    const x = seeded([1, 9, 9, 3], 9);
    const expected = tf.tidy(() => {
      const conv = tf.prelu(tf.add(tf.conv2d(x as tf.Tensor4D, c.w1 as tf.Tensor4D, 2, 'same'), c.b1), c.a1);
      const pool = tf.maxPool(conv as tf.Tensor4D, 2, 2, 'same');
      const relu = tf.relu(tf.add(tf.depthwiseConv2d(conv as tf.Tensor4D, c.dw as tf.Tensor4D, 2, 'same'), pool));
      const padded = tf.pad(relu, [
        [0, 0],
        [1, 0],
        [0, 1],
        [0, 2],
      ]);
      const pw = tf.relu(tf.add(tf.conv2d(padded as tf.Tensor4D, c.w2 as tf.Tensor4D, 1, 'valid'), c.b2));
      return [tf.reshape(tf.sigmoid(tf.concat([padded, pw], -1)), [1, -1, 3]), pool];
    });
    const [out, pool] = NativeGraph.create(encodeOnnxModel(graph)).run(x.dataSync() as Float32Array, x.shape);
    expect(out!.dims).toEqual(expected[0]!.shape);
    expect(maxDiff(out!.data, expected[0]!.dataSync())).toBeLessThan(1e-5);
    expect(pool!.dims).toEqual(expected[1]!.shape);
    expect(maxDiff(pool!.data, expected[1]!.dataSync())).toBeLessThan(1e-5);
  });

  it('refuses an op or an attribute it would not convert exactly, naming the node', () => {
    const input = node('x', 'Placeholder', [], {
      shape: { shape: { dim: [1, 4, 4, 3].map((s) => ({ size: String(s) })) } },
    } as never);
    const convert = (n: TfGraphNode) => () =>
      tfjsGraphToOnnx([input, n], () => ({ shape: [1, 1, 3, 3], data: new Float32Array(9) }), [n.name]);
    expect(convert(node('t', 'Tanh', ['x']))).toThrow(/Tanh t: op not supported/);
    expect(
      convert(
        node('m', 'MaxPool', ['x'], { ksize: ints(1, 2, 2, 1), strides: ints(1, 1, 1, 1), padding: { s: b64('EXPLICIT') } }),
      ),
    ).toThrow(/MaxPool m: padding EXPLICIT/);
    expect(
      convert(
        node('f', '_FusedConv2D', ['x', 'w', 'b'], {
          fused_ops: { list: { s: [b64('BiasAdd'), b64('LeakyRelu')] } },
          strides: ints(1, 1, 1, 1),
          padding: { s: b64('VALID') },
        }),
      ),
    ).toThrow(/_FusedConv2D f: fused activation LeakyRelu/);
    expect(convert(node('n', 'Relu', ['x:1']))).toThrow(/output x:1 of a multi-output op/);
    const overChannels = node('m', 'Mean', ['x', 'axes'], { keep_dims: { b: false } });
    expect(() =>
      tfjsGraphToOnnx([input, node('axes', 'Const', []), overChannels], () => ({ shape: [1], data: Int32Array.of(3) }), ['m']),
    ).toThrow(/Mean m: a mean other than over height and width/);
  });
});

describe("Human's and face-api's networks on onnxruntime", () => {
  it('give what tfjs gives on a real photo, output for output', async () => {
    const runtime = await FaceRuntime.load(defaultModelsDir(), 'wasm');
    const models = (
      runtime as unknown as { human: { models: { models: Record<string, { execute(x: tf.Tensor): tf.Tensor | tf.Tensor[] }> } } }
    ).human.models.models;
    const photo = readFileSync(path.join(packageRoot(), 'test', 'fixtures', 'fr-obama.jpg'));
    // Each network's input much as Human prepares it: the photo at the network's size and scale.
    const input = async (side: number, batch: number, scale: (t: tf.Tensor) => tf.Tensor) => {
      const pixels = await sharp(photo).resize(side, side, { fit: 'fill' }).removeAlpha().raw().toBuffer();
      const one = () => scale(tf.tensor4d(new Uint8Array(pixels), [1, side, side, 3], 'int32'));
      return tf.tidy(() => tf.concat(Array.from({ length: batch }, one)));
    };
    const inputs: Record<(typeof NATIVE_HUMAN_GRAPHS)[number], tf.Tensor> = {
      blazeface: await input(256, 1, (t) => tf.sub(tf.div(t, 127.5), 1)),
      facemesh: await input(192, 1, (t) => tf.div(t, 255)),
      iris: await input(64, 2, (t) => tf.div(t, 255)),
      antispoof: await input(128, 1, (t) => tf.div(t, 255)),
      liveness: await input(32, 1, (t) => tf.div(t, 255)),
    };
    const run = (k: keyof typeof inputs) => {
      const out = models[k]!.execute(inputs[k]);
      return (Array.isArray(out) ? out : [out]).map((t) => ({ shape: t.shape, data: t.dataSync().slice() }));
    };
    const onWasm = NATIVE_HUMAN_GRAPHS.map(run);
    const faceapi = (runtime as unknown as { faceapi: FaceApi }).faceapi;
    const face = tf.tidy(() => tf.squeeze(tf.cast(tf.mul(inputs.facemesh, 255), 'int32'), [0]) as tf.Tensor3D);
    const landmarks = async () =>
      (await faceapi.nets.faceLandmark68Net.detectLandmarks(face)).positions.flatMap((p) => [p.x, p.y]);
    const landmarksOnWasm = await landmarks();
    const ageGenderOnWasm = await faceapi.nets.ageGenderNet.predictAgeAndGender(face);
    const expressionsOnWasm = await faceapi.nets.faceExpressionNet.predictExpressions(face);
    // A network that cannot be loaded leaves every network on WASM, not some of them.
    const onWasmExecute = models.blazeface!.execute;
    const installed = (name: FaceNetwork) => readNetworkFile(defaultModelsDir(), name);
    const missing = (key: string) => {
      if (key === 'liveness') throw new Error('liveness missing');
      return installed(`human-${key}` as FaceNetwork);
    };
    expect(() => humanGraphsOnNative(models, missing)).toThrow(/liveness missing/);
    expect(models.blazeface!.execute).toBe(onWasmExecute);
    humanGraphsOnNative(models, (key) => installed(`human-${key}`))();
    faceApiNetsOnNative(faceapi, installed)();
    // face-api's 68 points, age and gender and expressions of a 192-pixel face, through its own pre- and post-processing.
    expect(maxDiff(await landmarks(), landmarksOnWasm)).toBeLessThan(1e-3);
    const ageGender = await faceapi.nets.ageGenderNet.predictAgeAndGender(face);
    expect(ageGender.age).toBeCloseTo(ageGenderOnWasm.age, 3);
    expect(ageGender.gender).toBe(ageGenderOnWasm.gender);
    expect(ageGender.genderProbability).toBeCloseTo(ageGenderOnWasm.genderProbability, 4);
    const expressions = await faceapi.nets.faceExpressionNet.predictExpressions(face);
    for (const [name, p] of Object.entries(expressionsOnWasm)) expect(expressions[name]).toBeCloseTo(p, 4);
    NATIVE_HUMAN_GRAPHS.forEach((k, i) => {
      const native = run(k);
      expect(native.length).toBe(onWasm[i]!.length);
      native.forEach((out, j) => {
        const ref = onWasm[i]![j]!;
        expect(out.shape).toEqual(ref.shape);
        const scale = Math.max(1, ...Array.from(ref.data, Math.abs));
        expect(maxDiff(out.data, ref.data) / scale).toBeLessThan(1e-5);
      });
    });
  }, 120_000);
});
