import { existsSync } from 'node:fs';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { IdleWorkers } from './idle-workers.js';
import { EXIT_REQUEST } from './worker-exit.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A frame of a template that the engine's decoder could not read: the template is invalid. */
export class FrameDecodeError extends Error {
  override name = 'FrameDecodeError';
  constructor(
    readonly frameIndex: number,
    reason: string,
  ) {
    super(`imagen ${frameIndex + 1}: ${reason}`);
  }
}

export class EngineBusyError extends Error {
  override name = 'EngineBusyError';
}

export class EngineFailedError extends Error {
  override name = 'EngineFailedError';
}

const RESTARTED = (): EngineFailedError => new EngineFailedError('el motor falló al procesar esta solicitud; se reinició');

interface Task<Req, Res> {
  request: Req;
  transfer: ArrayBuffer[];
  resolve: (value: Res) => void;
  reject: (error: Error) => void;
}

interface Slot<Req, Res> {
  worker: Worker;
  ready: boolean;
  task: Task<Req, Res> | null;
  timer: NodeJS.Timeout | null;
  /** Asked to end (pool closed, task past its time): takes no more tasks. */
  retiring: boolean;
  exited: Promise<void>;
}

/**
 * How long a worker asked to end may take to reach JavaScript and end itself before it is
 * terminated: the longest step it cannot be interrupted in (one network's load or run) is well
 * under it. A worker still running past it is presumed stuck; terminating it is the only way out.
 */
const EXIT_GRACE_MS = 10_000;

export interface PoolOptions {
  script: string;
  workerData: unknown;
  size: number;
  /** Waiting requests beyond the ones running; past it, requests are refused at once. */
  maxQueue: number;
  taskTimeoutMs: number;
  /** How long a worker asked to end may take before it is terminated; EXIT_GRACE_MS by default. */
  exitGraceMs?: number;
  /** V8 heap limits of each worker (worker_threads' resourceLimits). */
  resourceLimits?: ResourceLimits;
  /** Kept at the number of ready workers without a task, for workers that borrow an idle core. */
  idleWorkers?: IdleWorkers;
  onEvent?: (event: string, detail?: unknown) => void;
}

export type PoolState = 'loading' | 'ready' | 'unavailable';

/**
 * A fixed set of worker threads, each holding its own copy of the models, fed from one bounded
 * queue. A worker that crashes or hangs is replaced and only its own request fails.
 */
export class WorkerPool<Req extends { id: number }, Res extends { id: number }> {
  private readonly slots: Slot<Req, Res>[] = [];
  private readonly queue: Task<Req, Res>[] = [];
  private nextId = 1;
  private closed = false;
  private failure: string | null = null;
  readonly readyPromise: Promise<void>;
  private markReady!: () => void;
  private markFailed!: (error: Error) => void;

  constructor(private readonly options: PoolOptions) {
    if (!existsSync(options.script)) throw new EngineFailedError(`falta el programa del motor: ${options.script}`);
    this.readyPromise = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.markFailed = reject;
    });
    this.readyPromise.catch(() => undefined);
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  get state(): PoolState {
    if (this.failure) return 'unavailable';
    return this.slots.some((s) => s.ready) ? 'ready' : 'loading';
  }

  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.task).length;
  }

  /** Runs one request on the next free worker. */
  run(request: DistributiveOmit<Req, 'id'>, transfer: ArrayBuffer[] = []): Promise<Res> {
    if (this.closed) return Promise.reject(new EngineFailedError('el motor está cerrado'));
    if (this.failure) return Promise.reject(new EngineFailedError(this.failure));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new EngineBusyError('la estación está al máximo de su capacidad; reintente en unos segundos'));
    }
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request: { ...request, id: this.nextId++ } as unknown as Req, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Ends every worker (see retire). A request still running is answered: with its result if its
   * worker finishes it before ending, otherwise as failed.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new EngineFailedError('el motor se cerró'));
    await Promise.all(this.slots.map((s) => this.retire(s)));
  }

  /**
   * Asks a worker to end itself (worker-exit.ts says why not terminate() at once), and terminates
   * it only if it has not within the grace (EXIT_GRACE_MS). Resolves when it has exited.
   */
  private retire(slot: Slot<Req, Res>): Promise<void> {
    if (!slot.retiring) {
      slot.retiring = true;
      this.countIdle();
      slot.worker.postMessage(EXIT_REQUEST);
      const kill = setTimeout(() => {
        this.options.onEvent?.('worker-stuck');
        void slot.worker.terminate();
      }, this.options.exitGraceMs ?? EXIT_GRACE_MS);
      void slot.exited.then(() => clearTimeout(kill));
    }
    return slot.exited;
  }

  private spawn(): Slot<Req, Res> {
    const worker = new Worker(this.options.script, {
      workerData: this.options.workerData,
      ...(this.options.resourceLimits ? { resourceLimits: this.options.resourceLimits } : {}),
    });
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const slot: Slot<Req, Res> = { worker, ready: false, task: null, timer: null, retiring: false, exited };
    worker.on('message', (message: { type?: string; error?: string } & Partial<Res>) => {
      if (message.type === 'ready') {
        slot.ready = true;
        this.markReady();
        // What the worker reports about its start (warm-up, runtimes), for the log.
        const { type: _ready, ...detail } = message;
        this.options.onEvent?.('worker-ready', detail);
        this.dispatch();
      } else if (message.type === 'failed') {
        this.failure = `el motor no pudo cargar sus modelos: ${message.error}`;
        this.markFailed(new EngineFailedError(this.failure));
        for (const task of this.queue.splice(0)) task.reject(new EngineFailedError(this.failure));
      } else if (slot.task && message.id === slot.task.request.id) {
        const task = slot.task;
        this.finish(slot);
        task.resolve(message as Res);
        this.dispatch();
      }
    });
    worker.on('error', (error) => this.options.onEvent?.('worker-error', error.message));
    worker.on('exit', (code) => {
      const task = slot.task;
      this.finish(slot);
      if (this.closed) {
        task?.reject(new EngineFailedError('el motor se cerró'));
        return;
      }
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.options.onEvent?.('worker-exit', code);
      task?.reject(RESTARTED());
      if (!this.failure) {
        this.slots[index] = this.spawn();
      }
      this.countIdle();
    });
    return slot;
  }

  private finish(slot: Slot<Req, Res>): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
  }

  /** After dispatch, so a finished task's worker is not counted idle while the queue still holds work for it. */
  private countIdle(): void {
    this.options.idleWorkers?.set(this.slots.filter((s) => s.ready && !s.retiring && !s.task).length);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.retiring || slot.task || this.queue.length === 0) continue;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.timer = setTimeout(() => {
        this.options.onEvent?.('worker-timeout');
        // Answered now; the worker is replaced once it has ended (the exit handler).
        this.finish(slot);
        task.reject(RESTARTED());
        void this.retire(slot);
      }, this.options.taskTimeoutMs);
      slot.worker.postMessage(task.request, task.transfer);
    }
    this.countIdle();
  }
}
