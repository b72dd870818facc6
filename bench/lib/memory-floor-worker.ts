// The helper thread of measureMemoryFloor: reads its half of the memory each time it is woken.
import { parentPort, workerData } from 'node:worker_threads';
import type { WasmMemory } from '../../server/search/index.js';
import { C_DONE, C_END, C_GEN, C_START, C_STOP, C_SUM, loadsKernel } from './memory-floor.js';

const { memory, control } = workerData as { memory: WasmMemory; control: Int32Array };
const sum = loadsKernel(memory);
// The generation is read before saying ready: a task handed right after would otherwise be missed.
let seen = Atomics.load(control, C_GEN);
parentPort!.postMessage('ready');
for (;;) {
  Atomics.wait(control, C_GEN, seen);
  seen = Atomics.load(control, C_GEN);
  if (Atomics.load(control, C_STOP)) break;
  control[C_SUM] = sum(control[C_START]!, control[C_END]!);
  Atomics.store(control, C_DONE, seen);
  Atomics.notify(control, C_DONE);
}
