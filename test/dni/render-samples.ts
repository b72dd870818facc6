// npx vite-node test/dni/render-samples.ts OUTDIR [COUNT] [--boxes]
// Renders the first COUNT (default 3) seeds of each split on every side, and one tampered front per
// split, as PNG files with their truth as JSON; --boxes also writes a copy with truth.text outlined
// (labels blue, values red) to check what was printed where.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  CARD_SEEDS,
  layoutProblems,
  RANDOM_RENDERERS,
  type RandomRenderedCard,
  type RandomSide,
  randomLayout,
  randomPerson,
  renderRandomCard,
  renderRandomFront2012,
  type Split,
  tamperedValues,
} from './random-card.js';

const args = process.argv.slice(2);
const boxes = args.includes('--boxes');
const [outDir, count = '3'] = args.filter((a) => a !== '--boxes');
if (!outDir) throw new Error('uso: render-samples.ts OUTDIR [COUNT] [--boxes]');
mkdirSync(outDir, { recursive: true });

function outlined(card: RandomRenderedCard): Buffer {
  const rects = card.truth.text.flatMap((t) =>
    t.lines.map(
      ({ box: b }) =>
        `<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" fill="none" stroke="${t.kind === 'label' ? '#0060ff' : '#ff2020'}" stroke-width="1"/>`,
    ),
  );
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${card.width}" height="${card.height}">${rects.join('')}</svg>`,
  );
}

async function save(name: string, card: RandomRenderedCard): Promise<void> {
  writeFileSync(path.join(outDir ?? '.', `${name}.png`), card.image);
  const { layout, ...truth } = card.truth;
  const fonts = Object.fromEntries(Object.entries(layout.fonts).map(([k, f]) => [k, f.family]));
  writeFileSync(path.join(outDir ?? '.', `${name}.json`), JSON.stringify({ ...truth, payloadBytes: undefined, fonts }, null, 1));
  if (boxes)
    await sharp(card.image)
      .composite([{ input: outlined(card) }])
      .png()
      .toFile(path.join(outDir ?? '.', `${name}-boxes.png`));
  const problems = layoutProblems(card);
  console.log(`${name}: ${Object.values(fonts).join(' / ')}${problems.length ? ` PROBLEMS: ${problems.join('; ')}` : ''}`);
}

for (const split of ['tuning', 'validation'] as Split[]) {
  for (const seed of CARD_SEEDS[split].slice(0, Number(count))) {
    for (const side of Object.keys(RANDOM_RENDERERS) as RandomSide[])
      await save(`${seed}-${side}`, await renderRandomCard(seed, side));
  }
  const seed = CARD_SEEDS[split][0] ?? 1;
  const person = randomPerson(seed);
  const tamper = tamperedValues(person, seed);
  await save(`${seed}-front-2012-tampered`, await renderRandomFront2012(person, randomLayout(seed, split), { tamper }));
}
