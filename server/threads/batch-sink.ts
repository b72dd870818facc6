/**
 * A batch of a bulk read's embeddings: the floats, or (`coded`, with `embeddings` empty) what the
 * caller's sink made of them on the thread that opened them.
 */
export type StreamVisitor = (ids: string[], embeddings: Float32Array[], coded?: unknown) => void;

/**
 * Work the caller hands to the threads that open a bulk read's batches: the module at `url` exports
 * `openedBatchSink(data)`, which returns a function of each opened batch (its persons, its floats
 * one after the other, where each embedding ends) giving what to send back instead of the floats
 * (and the buffers to transfer), or null to send the floats.
 */
export interface BatchSink {
  url: string;
  data: unknown;
}

export type OpenedBatchSink = (
  ids: string[],
  floats: Float32Array,
  ends: Int32Array,
) => { coded: unknown; transfer: ArrayBuffer[] } | null;

/**
 * What takes a bulk read whose batches are opened on other threads (QuantizedEmbeddingIndex's
 * bulkLoader): `sink`, asked once with a bound on the rows to come, is the work for those threads;
 * every batch goes to `take`, then `finish`.
 */
export interface BulkTaker {
  sink: (atMost: number) => BatchSink;
  take: StreamVisitor;
  finish: () => void;
}
