// The threads' entry point: where a worker's compiled script is, and the bulk reads' batch sinks.
export type { BatchSink, BulkTaker, OpenedBatchSink, StreamVisitor } from './batch-sink.js';
export { compiledBeside, workerScript } from './worker-script.js';
