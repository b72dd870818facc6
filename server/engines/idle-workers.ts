/**
 * How many of a pool's workers are ready and without a task, in memory shared by the pool and its
 * workers. The pool has one worker per core, so an idle worker is an idle core: a worker about to
 * run a network that parallelises well may borrow it for that run, and sees at that moment, not
 * at dispatch, whether another request has taken it since (docs/face-engine.md, "An idle core
 * lent").
 */
export class IdleWorkers {
  private readonly count: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.count = new Int32Array(buffer);
  }

  /** Set by the pool whenever a worker takes, ends or loses a task, or becomes ready. */
  set(idle: number): void {
    Atomics.store(this.count, 0, idle);
  }

  get(): number {
    return Atomics.load(this.count, 0);
  }
}
