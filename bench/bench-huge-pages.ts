// npm run bench:huge-pages [-- --gallery N --dim D --probes P]
// The search index on 2 MiB pages against the same index on 4 KiB pages (huge-pages.ts), both in
// this process and searched alternately probe by probe, so that the machine's drift (its memory's
// speed swings by 1.5x between runs here) falls on both alike. Float rows in memory: only the first
// pass and the 4-bit scoring read the pages compared.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { anonHugePagesBytes, QuantizedEmbeddingIndex, transparentHugePages } from '../server/search/index.js';
import { packageRoot } from '../server/version.js';
import { percentile, printTable } from './lib/metrics.js';
import { Rng, SyntheticGallery } from './lib/synthetic-embeddings.js';

const { values: args } = parseArgs({
  options: {
    gallery: { type: 'string', default: '1000000' },
    dim: { type: 'string', default: '512' },
    probes: { type: 'string', default: '400' },
  },
});
const N = Number(args.gallery);
const DIM = Number(args.dim);
const PROBES = Number(args.probes);
const K = 10;

const modes = ['huge', '4k'] as const;
const index = {
  huge: await QuantizedEmbeddingIndex.create(DIM, { threads: 2, capacity: N }),
  '4k': await QuantizedEmbeddingIndex.create(DIM, { threads: 2, capacity: N, hugePages: false }),
};
const gen = new SyntheticGallery({ dim: DIM });
const identity = new Float32Array(DIM);
const sample = new Float32Array(DIM);
for (let p = 0; p < N; p++) {
  gen.person(p, identity);
  gen.sample(p, 0, identity, sample);
  for (const m of modes) index[m].set(`p${p}`, [sample]);
}
const hugeBytes = anonHugePagesBytes();
const pick = new Rng(42, N);
const probes = Array.from({ length: PROBES }, (_, j) => {
  const i = Math.floor(pick.uniform() * N);
  return gen.sample(i, -1 - j, gen.person(i));
});
for (const m of modes) for (const p of probes.slice(0, 20)) index[m].search(p, K);

const times = { huge: [] as number[], '4k': [] as number[] };
const firstPass = { huge: [] as number[], '4k': [] as number[] };
const refine = { huge: [] as number[], '4k': [] as number[] };
probes.forEach((probe, j) => {
  // Each goes first on every other probe.
  for (const m of j % 2 ? modes : [...modes].reverse()) {
    const t0 = performance.now();
    index[m].search(probe, K);
    times[m].push(performance.now() - t0);
    firstPass[m].push(index[m].lastSearch.firstPassMs);
    refine[m].push(index[m].lastSearch.refineMs);
  }
});
const fasterOnHuge = times.huge.filter((t, i) => t < times['4k'][i]!).length;
const round = (x: number) => Math.round(x * 1000) / 1000;
const rows = modes.map((m) => ({
  pages: m === 'huge' ? `2 MiB (${index[m].hugePages})` : '4 KiB',
  p50_ms: round(percentile(times[m], 50)),
  p95_ms: round(percentile(times[m], 95)),
  first_pass_ms_median: round(percentile(firstPass[m], 50)),
  first_pass_ms_p95: round(percentile(firstPass[m], 95)),
  refine_ms_median: round(percentile(refine[m], 50)),
}));
for (const m of modes) await index[m].close();

printTable(rows);
console.log(
  `\n${N} x ${DIM}, ${PROBES} probes, top-${K}: faster on huge pages in ${fasterOnHuge} of ${PROBES}; ` +
    `transparent huge pages ${transparentHugePages()}, ${hugeBytes === null ? '?' : Math.round(hugeBytes / 2 ** 20)} MB of the process on them`,
);
const out = path.join(packageRoot(), 'bench', 'results', `huge-pages-${N}-d${DIM}.json`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      gallery: N,
      dim: DIM,
      probes: PROBES,
      k: K,
      transparent_huge_pages: transparentHugePages(),
      huge_pages_mb: hugeBytes === null ? null : Math.round(hugeBytes / 2 ** 20),
      faster_on_huge_pages: fasterOnHuge,
      rows,
      node: process.version,
      measured_at: new Date().toISOString(),
    },
    null,
    2,
  )}\n`,
);
console.log(`-> ${path.relative(packageRoot(), out)}`);
