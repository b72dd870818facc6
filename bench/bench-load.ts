// npm run bench:load -- [--duration S] [--clients N] [--overload-clients N] [--overload-queue N]
// Drives a real station's HTTPS API on loopback with concurrent keep-alive clients, real face
// templates from test/fixtures: verify and identify at a normal load, then identify far beyond
// capacity with a small engine queue, where the excess must be refused at once with the 503
// envelope rather than pile up. Prints a table; writes bench/results/bench-load.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OPERATIONS } from '../common/api/operations.js';
import { encodeTemplate } from '../common/uitemplate/index.js';
import { loadConfig } from '../server/config/index.js';
import { createLogger } from '../server/log/index.js';
import { startStation, type RunningStation } from '../server/station/index.js';
import { packageRoot } from '../server/version.js';
import { httpsPost } from './lib/https-post.js';
import { percentile, printTable } from './lib/metrics.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}

const DURATION_S = arg('duration', 15);
const CLIENTS = arg('clients', 4);
const OVERLOAD_CLIENTS = arg('overload-clients', 32);
const OVERLOAD_QUEUE = arg('overload-queue', 2);
/** No request may outlive this: a pile-up shows as timeouts, not as a hung benchmark. */
const REQUEST_TIMEOUT_MS = 30_000;

const fixtures = path.join(packageRoot(), 'test', 'fixtures');
const template = (...names: string[]) =>
  encodeTemplate({
    kind: 'face',
    frames: names.map((n, i) => ({ data: new Uint8Array(readFileSync(path.join(fixtures, n))), offsetMs: i * 200 })),
    device: { kind: 'file', software: 'bench-load' },
  });

interface Station {
  station: RunningStation;
  dataDir: string;
  token: string;
  agent: Agent;
}

async function start(maxQueue: number, clients: number): Promise<Station> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-load-'));
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir,
      host: '127.0.0.1', // loopback only
      port: 0,
      logLevel: 'silent',
      engines: { face: { enabled: true, workers: 0, maxQueue }, document: { enabled: false } },
    },
  });
  const station = await startStation(config, { logger: createLogger('silent'), consoleDir: null, waitForEngines: true });
  const ca = readFileSync(path.join(dataDir, 'tls', 'station-cert.pem'), 'utf8');
  const token = station.tokens.create('bench-load', ['enroll', 'verify', 'identify']).token;
  const agent = new Agent({ keepAlive: true, maxSockets: clients, ca });
  return { station, dataDir, token, agent };
}

async function stop(s: Station) {
  s.agent.destroy();
  await s.station.close();
  rmSync(s.dataDir, { recursive: true, force: true });
}

interface Answer {
  status: number;
  ms: number;
  /** A 503 with the envelope {success: false, error: {codigo: 503, ...}, data: null} and Retry-After. */
  envelope503?: boolean;
}

async function post(s: Station, p: string, body: string): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await httpsPost(
      s.agent,
      new URL(p, s.station.url),
      { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
      body,
      REQUEST_TIMEOUT_MS,
    );
    const answer: Answer = { status: res.status, ms: res.ms };
    if (res.status === 503) {
      try {
        const env = JSON.parse(res.body.toString('utf8')) as {
          success: boolean;
          error: { codigo: number; descripcion: string };
          data: unknown;
        };
        answer.envelope503 =
          env.success === false && env.error.codigo === 503 && env.data === null && res.headers['retry-after'] !== undefined;
      } catch {
        answer.envelope503 = false;
      }
    }
    return answer;
  } catch {
    return { status: 0, ms: performance.now() - t0 };
  }
}

interface PhaseResult {
  phase: string;
  clients: number;
  duration_s: number;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ok_p50_ms: number | null;
  refused_p50_ms: number | null;
  by_status: Record<string, number>;
  refused_with_envelope: number;
  errors: number;
}

/** `clients` loops sending requests until the deadline; the answers of requests sent before it are awaited. */
async function phase(name: string, s: Station, clients: number, next: (i: number) => [string, string]): Promise<PhaseResult> {
  const answers: Answer[] = [];
  const t0 = performance.now();
  const deadline = t0 + DURATION_S * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const [p, body] = next(n++);
        const a = await post(s, p, body);
        answers.push(a);
        // A refused client backs off a little, as Retry-After asks (not the full 2 s: we want pressure).
        if (a.status === 503) await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const byStatus: Record<string, number> = {};
  for (const a of answers) byStatus[String(a.status)] = (byStatus[String(a.status)] ?? 0) + 1;
  const ms = answers.map((a) => a.ms);
  const ok = answers.filter((a) => a.status === 200).map((a) => a.ms);
  const refused = answers.filter((a) => a.status === 503).map((a) => a.ms);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    phase: name,
    clients,
    duration_s: r2(elapsed),
    requests: answers.length,
    rps: r2(answers.length / elapsed),
    p50_ms: r2(percentile(ms, 50)),
    p99_ms: r2(percentile(ms, 99)),
    ok_p50_ms: ok.length ? r2(percentile(ok, 50)) : null,
    refused_p50_ms: refused.length ? r2(percentile(refused, 50)) : null,
    by_status: byStatus,
    refused_with_envelope: answers.filter((a) => a.envelope503).length,
    errors: answers.filter((a) => a.status !== 200 && a.status !== 503).length,
  };
}

async function enrollSome(s: Station) {
  for (const [id, photo] of [
    ['obama', 'fr-obama.jpg'],
    ['kit', 'fr-kit_harington2.jpg'],
    ['rose', 'fr-rose_leslie1.jpg'],
  ] as const) {
    const body = JSON.stringify({ idPersona: id, template: await template(photo) });
    const a = await post(s, OPERATIONS.enroll.path, body);
    if (a.status !== 200) throw new Error(`enroll ${id}: HTTP ${a.status}`);
  }
}

async function main() {
  const probes = {
    obama: await template('fr-obama-test1.jpg'),
    kit: await template('fr-kit_harington_test1.jpg'),
    stranger: await template('human-stock-emotions-a-1.jpg'),
  };
  const verify = (i: number): [string, string] => {
    const [id, tpl] = i % 2 ? ['obama', probes.obama] : ['kit', probes.kit];
    return [OPERATIONS.verify.path, JSON.stringify({ idPersona: id, template: tpl })];
  };
  const identify = (i: number): [string, string] => [
    OPERATIONS.identify.path,
    JSON.stringify({ template: [probes.kit, probes.obama, probes.stranger][i % 3] }),
  ];

  const results: PhaseResult[] = [];
  const normal = await start(32, CLIENTS);
  try {
    await enrollSome(normal);
    await post(normal, ...verify(0)); // warm-up
    results.push(await phase('verificar-UI', normal, CLIENTS, verify));
    results.push(await phase('identificar-UI', normal, CLIENTS, identify));
  } finally {
    await stop(normal);
  }
  const small = await start(OVERLOAD_QUEUE, OVERLOAD_CLIENTS);
  try {
    await enrollSome(small);
    results.push(await phase(`identificar-UI, maxQueue ${OVERLOAD_QUEUE}`, small, OVERLOAD_CLIENTS, identify));
  } finally {
    await stop(small);
  }

  printTable(
    results.map((r) => ({
      phase: r.phase,
      clients: r.clients,
      requests: r.requests,
      rps: r.rps,
      p50_ms: r.p50_ms,
      p99_ms: r.p99_ms,
      ok_p50_ms: r.ok_p50_ms ?? '-',
      '503_p50_ms': r.refused_p50_ms ?? '-',
      statuses: Object.entries(r.by_status)
        .map(([k, v]) => `${k}:${v}`)
        .join(' '),
    })),
  );
  const dir = path.join(packageRoot(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'bench-load.json');
  writeFileSync(
    out,
    `${JSON.stringify({ phases: results, node: process.version, measured_at: new Date().toISOString() }, null, 2)}\n`,
  );
  console.log(`-> ${path.relative(packageRoot(), out)}`);
  const overload = results.at(-1)!;
  if (overload.errors > 0 || overload.refused_with_envelope !== (overload.by_status['503'] ?? 0)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
