import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DocumentEngine } from './document/document-engine.js';
import { FaceEngine } from './face/face-engine.js';
import { IdleWorkers } from './idle-workers.js';
import { compiledBeside } from '../threads/worker-script.js';
import { WorkerPool } from './worker-pool.js';

// A worker whose task is one step it cannot be interrupted in (as a network's load or run is),
// ended the way the engines' workers are (worker-exit.ts).
const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-pool-'));
const script = path.join(dir, 'busy-worker.mjs');
writeFileSync(
  script,
  `import { parentPort, workerData } from 'node:worker_threads';
import { exitWhenAsked } from ${JSON.stringify(pathToFileURL(compiledBeside(import.meta.url, 'worker-exit.js')).href)};
exitWhenAsked(parentPort);
parentPort.on('message', (m) => {
  if (m.type !== 'busy') return;
  // What the pool's shared count of idle workers says halfway through the step.
  const idle = workerData?.idle ? new Int32Array(workerData.idle) : null;
  let idleSeen = null;
  const half = Date.now() + m.ms / 2;
  while (Date.now() < half);
  if (idle) idleSeen = Atomics.load(idle, 0);
  const until = Date.now() + m.ms / 2;
  while (Date.now() < until);
  parentPort.postMessage({ id: m.id, busyMs: m.ms, idleSeen });
});
parentPort.postMessage({ type: 'ready' });
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Req = { id: number; type: 'busy'; ms: number };
type Res = { id: number; busyMs: number; idleSeen: number | null };

function pool(taskTimeoutMs: number, events: string[]): WorkerPool<Req, Res> {
  return new WorkerPool<Req, Res>({
    script,
    workerData: null,
    size: 1,
    maxQueue: 4,
    taskTimeoutMs,
    exitGraceMs: 1_000,
    onEvent: (event) => events.push(event),
  });
}

describe('WorkerPool ending its workers', () => {
  it('answers a task past its time at once, lets the worker end itself after its step, and replaces it', async () => {
    const events: string[] = [];
    const p = pool(100, events);
    await p.readyPromise;
    const error = (await p.run({ type: 'busy', ms: 600 }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/se reinició/);
    // Answered while the worker was still in its step: it had not exited yet.
    expect(events).toEqual(['worker-ready', 'worker-timeout']);
    await expect(p.run({ type: 'busy', ms: 10 })).resolves.toMatchObject({ busyMs: 10 });
    expect(events).toEqual(['worker-ready', 'worker-timeout', 'worker-exit', 'worker-ready']);
    await p.close();
  });

  it('terminates a worker that does not end within the grace (stuck)', async () => {
    const events: string[] = [];
    const p = pool(100, events);
    await p.readyPromise;
    await expect(p.run({ type: 'busy', ms: 1e9 })).rejects.toThrow(/se reinició/);
    await expect(p.run({ type: 'busy', ms: 10 })).resolves.toMatchObject({ busyMs: 10 });
    expect(events).toEqual(['worker-ready', 'worker-timeout', 'worker-stuck', 'worker-exit', 'worker-ready']);
    await p.close();
  });

  it('on close, lets the running step finish and answers it, refuses the waiting tasks, and the worker ends itself', async () => {
    const events: string[] = [];
    const p = pool(10_000, events);
    await p.readyPromise;
    const running = p.run({ type: 'busy', ms: 300 });
    const waiting = p.run({ type: 'busy', ms: 10 }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await p.close();
    await expect(running).resolves.toMatchObject({ busyMs: 300 });
    expect((await waiting) as Error).toMatchObject({ message: 'el motor se cerró' });
    await expect(p.run({ type: 'busy', ms: 10 })).rejects.toThrow(/cerrado/);
    expect(events).toEqual(['worker-ready']);
  });
});

describe('WorkerPool counting its idle workers', () => {
  it('keeps the shared count at its ready workers without a task, as the workers see it mid-task', async () => {
    const idle = new IdleWorkers();
    const p = new WorkerPool<Req, Res>({
      script,
      workerData: { idle: idle.buffer },
      size: 2,
      maxQueue: 4,
      taskTimeoutMs: 10_000,
      exitGraceMs: 1_000,
      idleWorkers: idle,
    });
    await vi.waitFor(() => expect(idle.get()).toBe(2), { timeout: 10_000 });
    // A lone request: the other worker is idle, its core free to borrow.
    expect((await p.run({ type: 'busy', ms: 100 })).idleSeen).toBe(1);
    // Four at once, two running and two waiting their turn: none has a core to borrow.
    const four = await Promise.all([0, 1, 2, 3].map(() => p.run({ type: 'busy', ms: 300 })));
    expect(four.map((r) => r.idleSeen)).toEqual([0, 0, 0, 0]);
    expect(idle.get()).toBe(2);
    await p.close();
    expect(idle.get()).toBe(0);
  });
});

describe("the engines' workers", () => {
  it('name a missing model file and what to run, then end instead of idling', async () => {
    const empty = mkdtempSync(path.join(dir, 'no-models-'));
    for (const [start, missing] of [
      [
        (onEvent: (e: string) => void) => FaceEngine.start({ modelsDir: empty, workers: 1, warmUp: false, onEvent }),
        'tfjs-wasm/tfjs-backend-wasm-simd.wasm',
      ],
      // The document worker checks its text detector and its tesseract files at once: either is named first.
      [
        (onEvent: (e: string) => void) => DocumentEngine.start({ modelsDir: empty, warmUp: false, onEvent }),
        '(tesseract|paddle)/',
      ],
    ] as const) {
      const events: string[] = [];
      const engine = start((e) => events.push(e));
      // The file named, and what to run.
      await expect(engine.ready()).rejects.toThrow(
        new RegExp(`no pudo cargar sus modelos: falta el archivo de modelo ${empty}/${missing}`),
      );
      await expect(engine.ready()).rejects.toThrow('(ejecute: node scripts/install-models.js)');
      expect(engine.state).toBe('unavailable');
      await vi.waitFor(() => expect(events).toContain('worker-exit'));
      await engine.close();
    }
  }, 60_000);
});
