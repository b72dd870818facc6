import * as tf from '@tensorflow/tfjs-core';

/**
 * Human straightens a tilted face (roll over about 11 degrees) by rotating the whole frame with
 * tfjs's RotateWithOffset and then cutting the face out of the rotated frame with CropAndResize.
 * On a 640x480 frame that rotation was the detect stage's largest kernel (docs/face-engine.md),
 * for a crop that reads a fifth of it. Here the rotation is deferred: its output is allocated at
 * once, and its pixels are computed when something reads them. A crop computes the rectangle it
 * reads (with a pixel of margin); any other kernel, or a read of the values, computes the whole
 * frame first, and so does the disposal of the frame it rotates. The pixels computed are those of
 * tfjs's WASM kernel, bit for bit (`deferred-rotation.test.ts`).
 */

/** What this module uses of tfjs's WASM backend (`BackendWasm`). */
interface WasmBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  readSync(dataId: object, start?: number, end?: number): unknown;
  disposeData(dataId: object, force?: boolean): boolean;
}

interface Rotation {
  source: tf.TensorInfo;
  out: tf.TensorInfo;
  sin: number;
  cos: number;
  centerX: number;
  centerY: number;
  fill: number[];
}

const ROTATE = 'RotateWithOffset';
const CROP = 'CropAndResize';

let uninstall: (() => void) | null = null;

/**
 * Defers RotateWithOffset on tfjs's WASM backend (once per thread; the backend must be
 * initialised). Returns what undoes it, for tests.
 */
export function deferRotations(): () => void {
  if (uninstall) return uninstall;
  const backend = tf.engine().findBackend('wasm') as unknown as WasmBackend | null;
  if (!backend) throw new Error('deferRotations: the wasm backend is not initialised');
  const pending = new Map<object, Rotation>();
  const complete = (dataId: object) => {
    const rotation = pending.get(dataId);
    if (!rotation) return;
    const [, height, width] = rotation.source.shape as [number, number, number, number];
    rotate(backend, rotation, 0, height - 1, 0, width - 1);
    pending.delete(dataId);
  };
  const completeInputs = (inputs: tf.NamedTensorInfoMap) => {
    if (pending.size === 0) return;
    for (const input of Object.values(inputs)) if (input && pending.has(input.dataId)) complete(input.dataId);
  };

  const original = tf.getKernelsForBackend('wasm');
  const replace = (config: tf.KernelConfig, kernelFunc: tf.KernelFunc) => {
    tf.unregisterKernel(config.kernelName, 'wasm');
    tf.registerKernel({ ...config, kernelFunc });
  };
  for (const config of original) {
    if (config.kernelName === ROTATE) {
      replace(config, (args) => {
        const image = args.inputs['image'] as tf.TensorInfo;
        const [batch, height, width, channels] = image.shape as [number, number, number, number];
        // Only the kernel's float path, with a fill per channel, is reproduced here, and only on the
        // backend whose reads and disposals are watched.
        if (args.backend !== (backend as unknown) || image.dtype !== 'float32' || channels > 4 || batch < 1)
          return config.kernelFunc(args);
        const attrs = args.attrs as unknown as {
          radians: number;
          fillValue: number | number[];
          center: number | [number, number];
        };
        const [centerX, centerY] = tf.backend_util.getImageCenter(attrs.center, height, width);
        const out = backend.makeOutput(image.shape, image.dtype);
        // The WASM kernel takes its arguments as float32, and the fill values through int32 into size_t.
        const radians = Math.fround(attrs.radians);
        const fills = typeof attrs.fillValue === 'number' ? [attrs.fillValue, attrs.fillValue, attrs.fillValue] : attrs.fillValue;
        const asSizeT = new Uint32Array(Int32Array.from(fills).buffer);
        pending.set(out.dataId, {
          source: image,
          out,
          sin: Math.fround(Math.sin(radians)),
          cos: Math.fround(Math.cos(radians)),
          centerX: Math.fround(centerX),
          centerY: Math.fround(centerY),
          fill: Array.from({ length: channels }, (_, k) => Math.fround(asSizeT[k] ?? 0)),
        });
        return out;
      });
    } else if (config.kernelName === CROP) {
      replace(config, (args) => {
        const image = args.inputs['image'] as tf.TensorInfo;
        const rotation = pending.get(image.dataId);
        if (rotation) {
          const boxes = backend.readSync((args.inputs['boxes'] as tf.TensorInfo).dataId) as Float32Array;
          const [, height, width] = image.shape as [number, number, number, number];
          const rows = span(boxes, 0, height);
          const cols = span(boxes, 1, width);
          // Boxes wholly outside the frame, or not numbers (rare): the whole of it, to be safe.
          if (rows && cols) rotate(backend, rotation, rows[0], rows[1], cols[0], cols[1]);
          else complete(image.dataId);
        }
        return config.kernelFunc(args);
      });
    } else {
      replace(config, (args) => {
        completeInputs(args.inputs);
        return config.kernelFunc(args);
      });
    }
  }

  const { readSync, disposeData } = backend;
  backend.readSync = function (dataId, start, end) {
    complete(dataId);
    return readSync.call(this, dataId, start, end);
  };
  backend.disposeData = function (dataId, force) {
    // A frame rotated but not yet computed is computed before it goes away.
    for (const [out, rotation] of pending) if (rotation.source.dataId === dataId) complete(out);
    const freed = disposeData.call(this, dataId, force);
    if (freed) pending.delete(dataId);
    return freed;
  };

  uninstall = () => {
    for (const out of [...pending.keys()]) complete(out);
    for (const config of original) {
      tf.unregisterKernel(config.kernelName, 'wasm');
      tf.registerKernel(config);
    }
    backend.readSync = readSync;
    backend.disposeData = disposeData;
    uninstall = null;
  };
  return uninstall;
}

/**
 * The rows (axis 0) or columns (axis 1) a bilinear or nearest crop of `boxes` (y1, x1, y2, x2,
 * normalised) reads from an image of `size` pixels along that axis, with a pixel of margin for the
 * kernel's own rounding; null when none is inside the image or a box is not a number.
 */
function span(boxes: Float32Array, axis: 0 | 1, size: number): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (let b = 0; b + 3 < boxes.length; b += 4) {
    for (const v of [boxes[b + axis]!, boxes[b + axis + 2]!]) {
      lo = Math.min(lo, v * (size - 1));
      hi = Math.max(hi, v * (size - 1));
    }
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
  const first = Math.max(0, Math.floor(lo) - 1);
  const last = Math.min(size - 1, Math.ceil(hi) + 1);
  return first <= last ? [first, last] : null;
}

/**
 * Rows `r0..r1` and columns `c0..c1` (inclusive) of every image of the rotation's output, as the
 * WASM kernel computes them: in float32 arithmetic, each output pixel from the source pixel nearest
 * its rotated position (C's round(), halves away from zero), or the fill outside the source.
 */
function rotate(backend: WasmBackend, rotation: Rotation, r0: number, r1: number, c0: number, c1: number): void {
  const f = Math.fround;
  const [batch, height, width, channels] = rotation.source.shape as [number, number, number, number];
  // Views taken now: an allocation since may have grown (and so replaced) the WASM memory.
  const src = backend.typedArrayFromHeap(rotation.source);
  const dst = backend.typedArrayFromHeap(rotation.out);
  const { sin, cos, centerX, centerY, fill } = rotation;
  const xCos = new Float64Array(c1 - c0 + 1);
  const xSin = new Float64Array(c1 - c0 + 1);
  for (let col = c0; col <= c1; col++) {
    const dx = f(col - centerX);
    xCos[col - c0] = f(dx * cos);
    xSin[col - c0] = f(dx * sin);
  }
  const rowLength = width * channels;
  for (let b = 0; b < batch; b++) {
    const image = b * height * rowLength;
    for (let row = r0; row <= r1; row++) {
      const dy = f(row - centerY);
      const ySin = f(dy * sin);
      const yCos = f(dy * cos);
      let o = image + row * rowLength + c0 * channels;
      for (let i = 0; i <= c1 - c0; i++, o += channels) {
        const fx = f(f(xCos[i]! - ySin) + centerX);
        const fy = f(f(xSin[i]! + yCos) + centerY);
        const x = fx >= 0 ? Math.floor(fx + 0.5) : -Math.floor(0.5 - fx);
        const y = fy >= 0 ? Math.floor(fy + 0.5) : -Math.floor(0.5 - fy);
        if (x >= 0 && x < width && y >= 0 && y < height) {
          const from = image + y * rowLength + x * channels;
          for (let k = 0; k < channels; k++) dst[o + k] = src[from + k]!;
        } else {
          for (let k = 0; k < channels; k++) dst[o + k] = fill[k]!;
        }
      }
    }
  }
}
