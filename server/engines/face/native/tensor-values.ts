import { tf } from '../worker/model-loader.js';

/**
 * A float tensor's values where the WASM backend keeps them, read in place: a network's input
 * copied out on every request would be garbage the worker's collector then pays for. Valid until
 * the tensor is disposed or WASM memory grows, so it goes straight into a synchronous run.
 */
export function tensorValues(x: tf.Tensor): Float32Array {
  const backend = tf.backend() as { typedArrayFromHeap?: (t: tf.Tensor) => Float32Array };
  if (x.dtype === 'float32' && typeof backend.typedArrayFromHeap === 'function') return backend.typedArrayFromHeap(x);
  const values = x.dataSync();
  return values instanceof Float32Array ? values : Float32Array.from(values);
}
