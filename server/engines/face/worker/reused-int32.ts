/**
 * An int32 buffer a worker keeps across requests for values it hands to tfjs, which copies a new
 * tensor's values into WASM memory at once: a fresh array per request would be garbage outside
 * V8's heap, which makes the worker's collector mark the whole heap every few requests
 * (docs/face-engine.md, worker pool). It grows up to `maxValues`; a larger request gets its own
 * array rather than pinning more memory.
 */
export class ReusedInt32 {
  private kept = new Int32Array(0);

  constructor(private readonly maxValues: number) {}

  /** `length` values, of unspecified content, valid until the next call. */
  take(length: number): Int32Array {
    if (length > this.maxValues) return new Int32Array(length);
    if (this.kept.length < length) this.kept = new Int32Array(length);
    return this.kept.subarray(0, length);
  }
}
