// npm run bench:soak -- [--minutes 10] [--clients 4] [--row-seconds 60] [--warmup-seconds 30] [--rejudge]
// A bounded soak on loopback: a real HTTPS station in this process, C clients sending a mix of
// verify / identify / extract / enroll with real photos back to back, one row per period (rps,
// p50, p99, errors, RSS and heap after GC, database size), and a verdict on drift and growth.
// Writes bench/results/bench-soak.json. The station and the clients share this process (the
// engines run in its worker threads), so RSS is the station's plus a constant client part.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OPERATIONS } from '../common/api/operations.js';
import { encodeTemplate } from '../common/uitemplate/index.js';
import { packageRoot } from '../server/version.js';
import { percentile, printTable } from './lib/metrics.js';
import { benchStation } from './lib/station.js';
import { soakVerdict, type SoakRow } from './lib/soak-verdict.js';
import { Rng } from './lib/synthetic-embeddings.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const MINUTES = Number(arg('minutes', '10'));
const CLIENTS = Number(arg('clients', '4'));
const ROW_SECONDS = Number(arg('row-seconds', '60'));
/** Not measured: the engines' first inferences and the allocator settling would read as drift and growth. */
const WARMUP_SECONDS = Number(arg('warmup-seconds', '30'));
/** Share of each operation in the mix; enrollments replace the samples of a fixed set of ids, so the gallery stays bounded. */
const MIX = { verify: 0.35, identify: 0.35, extractFace: 0.2, enroll: 0.1 } as const;
const ENROLL_IDS = 50;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const fixture = (name: string) => new Uint8Array(readFileSync(path.join(packageRoot(), 'test', 'fixtures', name)));

/** Enrolled once before the soak, and the photos each person is probed with. */
const PEOPLE = {
  obama: { enroll: 'fr-obama.jpg', probes: ['fr-obama2.jpg', 'fr-obama-test1.jpg'] },
  kit: { enroll: 'fr-kit_harington2.jpg', probes: ['fr-kit_harington_test1.jpg'] },
  stock: { enroll: 'human-stock-emotions-a-1.jpg', probes: ['human-stock-emotions-a-6.jpg'] },
} as const;
const STRANGERS = ['fr-rose_leslie1.jpg', 'human-stock-emotions-b-1.jpg', 'face-a.jpg'];

const template = (photo: string) =>
  encodeTemplate({ kind: 'face', frames: [{ data: fixture(photo) }], device: { kind: 'file' } });

interface Sample {
  ms: number;
  ok: boolean;
  op: string;
}

function dirBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .reduce((sum, d) => sum + statSync(path.join(d.parentPath, d.name)).size, 0);
}

async function main() {
  const bench = await benchStation();
  const post = (op: keyof typeof OPERATIONS, body: unknown) => bench.post(OPERATIONS[op].path, JSON.stringify(body));
  for (const [idPersona, p] of Object.entries(PEOPLE)) {
    const res = await post('enroll', { idPersona, template: await template(p.enroll) });
    if (res.json.data?.status !== 'SUCCESS') throw new Error(`seed enrollment of ${idPersona}: ${JSON.stringify(res.json)}`);
  }
  const probes = await Promise.all(
    Object.entries(PEOPLE).flatMap(([idPersona, p]) =>
      p.probes.map(async (photo) => ({ idPersona, template: await template(photo) })),
    ),
  );
  const strangers = await Promise.all(STRANGERS.map(template));
  const everyone = [...probes.map((p) => p.template), ...strangers];

  const rng = new Rng(7, 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng.uniform() * list.length)]!;
  const nextRequest = (): [keyof typeof OPERATIONS, unknown] => {
    let r = rng.uniform();
    for (const [op, share] of Object.entries(MIX) as [keyof typeof MIX, number][]) {
      if ((r -= share) > 0) continue;
      switch (op) {
        case 'verify': {
          const p = pick(probes);
          return ['verify', { idPersona: p.idPersona, template: p.template }];
        }
        case 'identify':
          return ['identify', { template: pick(everyone) }];
        case 'extractFace':
          return ['extractFace', { template: pick(everyone), parametros: { useCache: false } }];
        case 'enroll':
          return [
            'enroll',
            {
              idPersona: `soak-${Math.floor(rng.uniform() * ENROLL_IDS)}`,
              template: pick(everyone),
              parametros: { duplicateSearch: false, replaceSamples: true },
            },
          ];
      }
    }
    return ['identify', { template: pick(everyone) }];
  };

  const clients = (until: number, record: (s: Sample) => void) =>
    Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          const [op, body] = nextRequest();
          try {
            const res = await post(op, body);
            record({ ms: res.ms, ok: res.status === 200 && res.json.success, op });
          } catch {
            record({ ms: 0, ok: false, op });
          }
        }
      }),
    );
  await clients(performance.now() + WARMUP_SECONDS * 1000, () => {});
  gc();
  const baseline = process.memoryUsage();
  console.log(
    `soak: ${MINUTES} min after ${WARMUP_SECONDS} s of warm-up, ${CLIENTS} clients, rows of ${ROW_SECONDS} s, mix ${JSON.stringify(MIX)}; ` +
      `baseline rss ${mb(baseline.rss)} MB, heap ${mb(baseline.heapUsed)} MB`,
  );
  const started = performance.now();
  const end = started + MINUTES * 60_000;
  let current: Sample[] = [];
  const byOp: Record<string, number> = {};
  const rows: Record<string, number>[] = [];
  let rowStart = started;

  const closeRow = () => {
    const now = performance.now();
    const samples = current;
    current = [];
    const times = samples.map((s) => s.ms);
    gc();
    const mem = process.memoryUsage();
    const row = {
      row: rows.length + 1,
      seconds: Math.round((now - started) / 1000),
      requests: samples.length,
      rps: Math.round((samples.length / ((now - rowStart) / 1000)) * 100) / 100,
      p50_ms: Math.round(percentile(times, 50)),
      p99_ms: Math.round(percentile(times, 99)),
      errors: samples.filter((s) => !s.ok).length,
      rss_mb: mb(mem.rss),
      heap_mb: mb(mem.heapUsed),
      data_mb: mb(dirBytes(bench.dataDir)),
    };
    rowStart = now;
    rows.push(row);
    console.log(JSON.stringify(row));
  };
  const ticker = setInterval(closeRow, ROW_SECONDS * 1000);

  await clients(end, (sample) => {
    current.push(sample);
    byOp[sample.op] = (byOp[sample.op] ?? 0) + 1;
  });
  clearInterval(ticker);
  if (current.length > 0 && performance.now() - rowStart > (ROW_SECONDS * 1000) / 2) closeRow();
  await bench.stop();

  const judged = soakVerdict(rows as unknown as SoakRow[]);
  const { steady, text: verdict } = judged;
  console.log('');
  printTable(rows);
  console.log(`\nrequests by operation: ${JSON.stringify(byOp)}`);
  console.log(verdict);

  const out = path.join(packageRoot(), 'bench', 'results', 'bench-soak.json');
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
        minutes: MINUTES,
        clients: CLIENTS,
        rowSeconds: ROW_SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        baseline: { rssMb: mb(baseline.rss), heapMb: mb(baseline.heapUsed) },
        mix: MIX,
        requestsByOperation: byOp,
        rows,
        steady,
        verdict,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

/** `--rejudge`: the verdict of the last run's rows again, by the current rule. */
function rejudge(): void {
  const out = path.join(packageRoot(), 'bench', 'results', 'bench-soak.json');
  const saved = JSON.parse(readFileSync(out, 'utf8')) as { rows: SoakRow[]; steady: boolean; verdict: string };
  const judged = soakVerdict(saved.rows);
  writeFileSync(out, `${JSON.stringify({ ...saved, steady: judged.steady, verdict: judged.text }, null, 2)}\n`);
  console.log(judged.text);
}

if (process.argv.includes('--rejudge')) rejudge();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
