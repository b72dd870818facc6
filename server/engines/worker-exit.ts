import type { MessagePort } from 'node:worker_threads';

/** What a pool posts to a worker it wants ended (WorkerPool.close, a task past its time). */
export const EXIT_REQUEST = { type: 'exit' } as const;

/**
 * Ends this worker thread when its pool asks, from JavaScript, between the steps of a start or a
 * task. `worker.terminate()` instead stops the thread wherever it is, and inside one of
 * onnxruntime-node's synchronous calls (a session's loadModel, seen in CI) it aborts the whole
 * process: the binding's N-API calls fail once the thread is terminating, and the C++ exception it
 * then throws is caught by nothing. Register it first, so that a worker still loading its models
 * hears the request too.
 */
export function exitWhenAsked(port: MessagePort): void {
  port.on('message', (message: { type?: unknown } | null) => {
    if (message?.type === EXIT_REQUEST.type) process.exit(0);
  });
}
