// Child process for the shutdown test: starts the engines and closes them at moments spread over
// their start, then once with a request in flight. Prints one JSON line; an abort ends it early.
import { readFileSync } from 'node:fs';
import { FULL_ANALYSIS } from '../../dist/server/engines/face/analyze-options.js';
import { DocumentEngine } from '../../dist/server/engines/document/document-engine.js';
import { defaultModelsDir, FaceEngine } from '../../dist/server/engines/face/face-engine.js';

const [rounds, photo] = [Number(process.argv[2]), process.argv[3]];
const modelsDir = defaultModelsDir();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const events = [];
const onEvent = (event) => events.push(event);
const startFace = (onReady = () => undefined) =>
  FaceEngine.start({
    modelsDir,
    workers: 1,
    warmUp: false,
    onEvent: (event) => {
      onEvent(event);
      if (event === 'worker-ready') onReady();
    },
  });

// How long one face worker takes to load (the quicker of two, the first paying for the process's
// own start), so that the closes below land inside the load whatever the machine.
let loadMs = Infinity;
for (let i = 0; i < 2; i++) {
  const t0 = performance.now();
  const engine = startFace();
  await engine.ready();
  loadMs = Math.min(loadMs, performance.now() - t0);
  await engine.close();
}

const closeMs = [];
let duringLoad = 0;
for (let i = 0; i < rounds; i++) {
  let ready = false;
  const engine = startFace(() => (ready = true));
  await sleep(loadMs * (0.3 + (0.8 * i) / Math.max(1, rounds - 1)));
  if (!ready) duringLoad++;
  const t = performance.now();
  await engine.close();
  closeMs.push(performance.now() - t);
}
for (const fraction of [0.2, 0.6]) {
  const engine = DocumentEngine.start({ modelsDir, warmUp: true, onEvent });
  await sleep(loadMs * fraction);
  await engine.close();
}

// A request still running when the engine closes is answered, not left waiting.
const engine = startFace();
await engine.ready();
const inFlight = engine.analyzeImage(readFileSync(photo), FULL_ANALYSIS).then(
  () => 'answered',
  (error) => error.message,
);
await sleep(20);
await engine.close();
const settled = await Promise.race([inFlight, sleep(10_000).then(() => 'unsettled')]);

process.stdout.write(
  `${JSON.stringify({ loadMs, closeMs, duringLoad, settled, stuck: events.filter((e) => e === 'worker-stuck').length })}\n`,
);
