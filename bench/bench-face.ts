// npm run bench:face — latency of each face operation over HTTPS (one client; on two workers, whose
// requests borrow the idle one's core, and on one), steady throughput with 4
// concurrent clients on 1 and on 2 workers (alternating, medians of 5 pairs), the engine's own
// time on the same frames, and a station's start with and without the workers' warm-up.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS, type OperationId } from '../common/api/operations.js';
import { encodeTemplate } from '../common/uitemplate/index.js';
import { FULL_ANALYSIS } from '../server/engines/index.js';
import { packageRoot } from '../server/version.js';
import { FIXTURES } from './lib/datasets.js';
import { percentile, printTable } from './lib/metrics.js';
import { measureStartup } from './lib/startup.js';
import { benchStation, type BenchStation } from './lib/station.js';
import { steadyThroughput, type Completion } from './lib/steady-throughput.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const CONCURRENT_REQUESTS = Number(process.env.BENCH_CONCURRENT ?? 40);
// One worker and two alternate this many times per operation: a 2-core VM's speed drifts between
// runs by more than the ratio's own spread, and adjacent pairs cancel most of the drift; a
// median of five resists one pair that met a slow moment of the VM better than one of three.
const PAIRS = Number(process.env.BENCH_THROUGHPUT_PAIRS ?? 5);
// Requests each worker serves on an operation before its throughput is timed (see below).
const WARM_UP_PER_WORKER = Number(process.env.BENCH_WARM_UP_PER_WORKER ?? 60);

const fixtures = {
  '1 rostro 640x480': readFileSync(path.join(packageRoot(), 'test', 'fixtures', 'video', 'live-0.jpg')),
  '3 rostros': readFileSync(path.join(FIXTURES, 'faces', 'human-group-2.jpg')),
};

async function template(image: Buffer): Promise<string> {
  return encodeTemplate({ kind: 'face', frames: [{ data: new Uint8Array(image) }], device: { kind: 'file' } });
}

function bodyFor(op: OperationId, tpl: string, round: number): string {
  switch (op) {
    case 'enroll':
      return JSON.stringify({
        idPersona: `bench-${round}-${Math.random()}`,
        template: tpl,
        parametros: { duplicateSearch: false },
      });
    case 'verify':
      return JSON.stringify({ idPersona: 'bench-ref', template: tpl });
    case 'extractFace':
      return JSON.stringify({ template: tpl, parametros: { useCache: false } });
    default:
      return JSON.stringify({ template: tpl });
  }
}

const OPS: OperationId[] = ['extractFace', 'verify', 'identify', 'enroll', 'spoof'];

/**
 * One client's latency on each station, in two blocks each (A B A B) so that the VM's drift falls
 * on both alike. Within a block the requests follow each other on one station, as an operator's
 * do, and its first request is not timed: right after the other station's it meets caches that one
 * has filled.
 */
async function latencies(stations: BenchStation[], op: OperationId, tpl: string) {
  const times = stations.map((): number[] => []);
  const block = Math.ceil(ROUNDS / 2);
  for (let pass = 0; pass < 2; pass++) {
    for (const [k, s] of stations.entries()) {
      for (let i = 0; i <= block; i++) {
        const r = await s.post(OPERATIONS[op].path, bodyFor(op, tpl, pass * (block + 1) + i));
        if (r.status !== 200) throw new Error(`${op}: HTTP ${r.status} ${JSON.stringify(r.json)}`);
        if (i > 0) times[k]!.push(r.ms);
      }
    }
  }
  return times.map((t) => ({ p50: percentile(t, 50), p95: percentile(t, 95) }));
}

/**
 * `total` requests from `clients` concurrent clients, each sending its next as its last is
 * answered: when each was answered, and the process's CPU time by then.
 */
async function drive(s: BenchStation, op: OperationId, tpl: string, clients: number, total: number) {
  let next = 0;
  const completions: Completion[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const i = next++;
        const r = await s.post(OPERATIONS[op].path, bodyFor(op, tpl, 1000 + i));
        if (r.status !== 200) throw new Error(`${op}: HTTP ${r.status}`);
        const cpu = process.cpuUsage();
        completions.push({ at: performance.now(), cpuMicros: cpu.user + cpu.system });
      }
    }),
  );
  return completions;
}

/**
 * Requests per second with `clients` concurrent clients, and the cores the whole process kept busy
 * meanwhile (CPU time of every thread over wall time: libvips and the collector work beside the
 * workers, so one worker already uses more than one core), while every client had a request in
 * flight (`steadyThroughput`): `CONCURRENT_REQUESTS` are timed, and `clients` more are sent before
 * and after.
 */
async function throughput(s: BenchStation, op: OperationId, tpl: string, clients: number) {
  return steadyThroughput(await drive(s, op, tpl, clients, CONCURRENT_REQUESTS + 2 * clients), clients);
}

type Throughput = Awaited<ReturnType<typeof throughput>>;
type Latency = Awaited<ReturnType<typeof latencies>>[number];

const rows: Record<string, unknown>[] = [];
const stages: Record<string, Record<string, number>> = {};
// A one-worker station's start without and with the workers' warm-up (engines.face.warmUp).
const startupRows = await measureStartup(
  (warmUp) => ({ engines: { face: { enabled: true, workers: 1, maxQueue: 8, warmUp }, document: { enabled: false } } }),
  OPERATIONS.extractFace.path,
  bodyFor('extractFace', await template(fixtures['1 rostro 640x480']), 0),
);

const two = await benchStation({ engines: { face: { enabled: true, workers: 2, maxQueue: 64 } } });
const one = await benchStation({ engines: { face: { enabled: true, workers: 1, maxQueue: 64 } } });
try {
  for (const s of [one, two]) {
    const ref = await s.post(
      OPERATIONS.enroll.path,
      JSON.stringify({ idPersona: 'bench-ref', template: await template(fixtures['1 rostro 640x480']) }),
    );
    if (ref.json.data?.status !== 'SUCCESS') throw new Error(`enroll of the reference failed: ${JSON.stringify(ref.json)}`);
  }
  const engine = two.station.faceEngine!;
  for (const [label, image] of Object.entries(fixtures)) {
    const tpl = await template(image);
    const raw: number[] = [];
    // What extraer-datos-rostro-UI computes by default: everything but the presentation models.
    const extractOptions = { ...FULL_ANALYSIS, presentation: false };
    const stageTimes: Record<string, number[]> = {};
    for (let i = 0; i < ROUNDS + 2; i++) {
      const t0 = performance.now();
      const analysis = await engine.analyzeImage(new Uint8Array(image), extractOptions);
      if (i < 2) continue;
      raw.push(performance.now() - t0);
      for (const [stage, ms] of Object.entries(analysis.timings)) (stageTimes[stage] ??= []).push(ms);
    }
    // Where the engine's time goes, per stage of the worker (decode, detect, landmarks, embedding...).
    stages[label] = Object.fromEntries(Object.entries(stageTimes).map(([k, v]) => [k, Math.round(percentile(v, 50) * 10) / 10]));
    for (const op of OPS) {
      // Two workers, whose lone request borrows the idle one's core, and one, which has none to
      // borrow (docs/face-engine.md, "An idle core lent").
      const [lat, alone] = (await latencies([two, one], op, tpl)) as [Latency, Latency];
      // The latency loop above ran on one worker only (the pool hands a lone request to its first
      // free worker). Each worker is its own V8 isolate that compiles and tiers up its hot code on
      // its own, and a few requests leave it far from the steady state of a station serving all
      // day: bring every worker of both stations there on this operation before timing them.
      for (const [s, workers] of [
        [one, 1],
        [two, 2],
      ] as const)
        await drive(s, op, tpl, 4, WARM_UP_PER_WORKER * workers);
      const pairs: { one: Throughput; two: Throughput }[] = [];
      for (let i = 0; i < PAIRS; i++)
        pairs.push({ one: await throughput(one, op, tpl, 4), two: await throughput(two, op, tpl, 4) });
      const med = (f: (p: (typeof pairs)[number]) => number) => percentile(pairs.map(f), 50);
      const speedups = pairs.map((p) => p.two.rps / p.one.rps);
      rows.push({
        fixture: label,
        operation: OPERATIONS[op].path.replace('/biometria/', ''),
        p50_ms: Math.round(lat.p50 * 10) / 10,
        p95_ms: Math.round(lat.p95 * 10) / 10,
        p50_ms_1_worker: Math.round(alone.p50 * 10) / 10,
        engine_extract_p50_ms: op === 'extractFace' ? Math.round(percentile(raw, 50) * 10) / 10 : '',
        rps_1_worker: Math.round(med((p) => p.one.rps) * 10) / 10,
        rps_2_workers: Math.round(med((p) => p.two.rps) * 10) / 10,
        // The median of the adjacent pairs' ratios, and their range.
        speedup: Math.round(percentile(speedups, 50) * 100) / 100,
        speedup_range: `${Math.min(...speedups).toFixed(2)}-${Math.max(...speedups).toFixed(2)}`,
        cores_1_worker: Math.round(med((p) => p.one.cores) * 100) / 100,
        cores_2_workers: Math.round(med((p) => p.two.cores) * 100) / 100,
        // The whole process's CPU per request. Equal on one and two workers, the speedup is
        // cores_2_workers / cores_1_worker: what one worker's side threads (libvips, V8's helpers,
        // the main thread) already take of the second core is all the second worker cannot add.
        cpu_ms_1_worker: Math.round(med((p) => (1000 * p.one.cores) / p.one.rps) * 10) / 10,
        cpu_ms_2_workers: Math.round(med((p) => (1000 * p.two.cores) / p.two.rps) * 10) / 10,
      });
      console.error(`  ${label} ${op} listo`);
    }
  }
} finally {
  await one.stop();
  await two.stop();
}
printTable(rows);
console.log('\nArranque (un worker, extraer-datos-rostro-UI 640x480): listo y primeras solicitudes, sin y con warm-up:');
printTable(startupRows);
console.log('\nMotor, mediana por etapa (ms):');
// A stage a frame did not reach (no single major face among three) is left blank.
const stageNames = [...new Set(Object.values(stages).flatMap((t) => Object.keys(t)))];
printTable(
  Object.entries(stages).map(([fixture, t]) => ({ fixture, ...Object.fromEntries(stageNames.map((k) => [k, t[k] ?? ''])) })),
);
const out = path.join(packageRoot(), 'bench', 'results', 'bench-face.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      rounds: ROUNDS,
      concurrentRequests: CONCURRENT_REQUESTS,
      clients: 4,
      throughputPairs: PAIRS,
      rows,
      startup: startupRows,
      engine_stages_p50_ms: stages,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nEscrito ${path.relative(packageRoot(), out)}`);
