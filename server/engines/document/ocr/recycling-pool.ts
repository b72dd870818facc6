/**
 * A few warm OCR workers shared by all requests. Tesseract workers take 0.2-0.5 s to start and slowly
 * grow their heap, so they are started ahead of need and replaced after `recycleAfter` jobs (the
 * replacement starts at once, while the other worker keeps serving).
 */
export interface RecyclingPoolOptions<W> {
  size: number;
  recycleAfter: number;
  create: () => Promise<W>;
  destroy: (worker: W) => Promise<void>;
}

interface Slot<W> {
  worker: Promise<W>;
  jobs: number;
  busy: boolean;
}

export class RecyclingPool<W> {
  private readonly slots: Slot<W>[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** Workers replaced so far (for tests and metrics). */
  recycled = 0;

  constructor(private readonly options: RecyclingPoolOptions<W>) {
    for (let i = 0; i < options.size; i++) this.slots.push(this.fresh());
  }

  private fresh(): Slot<W> {
    const worker = this.options.create();
    worker.catch(() => undefined); // reported to the job that uses the slot
    return { worker, jobs: 0, busy: false };
  }

  /** Resolves when every worker has started (rejects if one cannot). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker));
  }

  /** Runs `job` on the next free worker. */
  async run<T>(job: (worker: W) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('el OCR está cerrado');
    let slot = this.slots.find((s) => !s.busy);
    while (!slot) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.closed) throw new Error('el OCR está cerrado');
      slot = this.slots.find((s) => !s.busy);
    }
    slot.busy = true;
    let broken = false;
    try {
      const worker = await slot.worker;
      slot.jobs++;
      return await job(worker);
    } catch (error) {
      broken = true; // a worker that failed a job (or never started) is not trusted with the next one
      throw error;
    } finally {
      if (broken || slot.jobs >= this.options.recycleAfter) this.replace(slot);
      slot.busy = false;
      this.waiting.shift()?.();
    }
  }

  private replace(slot: Slot<W>): void {
    const old = slot.worker;
    void old.then((w) => this.options.destroy(w)).catch(() => undefined);
    if (this.closed) return;
    const next = this.fresh();
    slot.worker = next.worker;
    slot.jobs = 0;
    this.recycled++;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.slots.map((s) => s.worker.then((w) => this.options.destroy(w)).catch(() => undefined)));
  }
}
