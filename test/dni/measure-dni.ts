/**
 * Measurement over the synthetic cards, beyond what the unit tests assert (harder degradations,
 * lower resolutions). Not part of the test suite; run by hand, one heavy thing at a time:
 *
 *   npx vite-node test/dni/measure-dni.ts
 *
 * The issue's `npm run eval:dni` will grow out of this once the engine has card localisation.
 */
import sharp from 'sharp';
import { MrzReader } from '../../server/engines/document/mrz/read-mrz.js';
import { parseTd1 } from '../../server/engines/document/mrz/td1-parser.js';
import { decodePdf417 } from '../../server/engines/document/pdf417/decode-pdf417.js';
import { parseDniPayload } from '../../server/engines/document/pdf417/dni-payload.js';
import { PEOPLE } from './dni-person.js';
import {
  type Degradation,
  degrade,
  type RenderedCard,
  renderBack2009,
  renderBack2012,
  renderFront2012,
} from './synthetic-card.js';

const CASES: Record<string, Degradation> = {
  clean: {},
  'rotate 2°': { rotate: 2 },
  'rotate -6°': { rotate: -6 },
  'rotate 10°': { rotate: 10 },
  tilt: { tilt: { shearX: 0.06, scaleY: 0.94 } },
  'perspective 5%': { perspective: 0.05 },
  'perspective 10% + 4°': { perspective: 0.1, rotate: 4 },
  'blur 1.5': { blur: 1.5 },
  'jpeg 40': { jpegQuality: 40 },
  'noise 15': { noise: 15, seed: 5 },
  'glare on code': { glare: { size: 0.5, at: [0.7, 0.8], opacity: 0.9 } },
  'half size': { scale: 0.5 },
  'half size + blur 1.5': { scale: 0.5, blur: 1.5 },
  'rotate 15°': { rotate: 15 },
  'third size': { scale: 1 / 3 },
  'handheld mix': { rotate: 3, blur: 1, noise: 6, jpegQuality: 70, scale: 0.75, seed: 9 },
};

const pct = (a: number[], q: number): number =>
  [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * q))] ?? NaN;

const people = Object.values(PEOPLE);
const pdfCards: RenderedCard[] = [];
const mrzCards: RenderedCard[] = [];
for (const p of people) {
  pdfCards.push(await renderFront2012(p), await renderBack2009(p));
  mrzCards.push(await renderBack2012(p));
}
const reader = new MrzReader();
await reader.ready();
const TODAY = new Date(2025, 5, 1);

console.log(
  '| degradation | PDF417 decoded+exact | PDF417 p50 / p95 ms | MRZ all checks valid + right | MRZ lines exact | MRZ p50 ms | wrong-but-valid |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [name, d] of Object.entries(CASES)) {
  let pdfOk = 0;
  const pdfMs: number[] = [];
  for (const card of pdfCards) {
    const img = await degrade(card, d);
    const t = performance.now();
    const r = await decodePdf417(img.image, { timeBudgetMs: 2500 });
    pdfMs.push(performance.now() - t);
    if (
      r &&
      Buffer.from(r.bytes).equals(card.truth.payloadBytes ?? Buffer.alloc(0)) &&
      parseDniPayload(r.bytes, { referenceDate: TODAY }).valid
    )
      pdfOk++;
  }
  let mrzOk = 0;
  let lines = 0;
  let wrongValid = 0;
  const mrzMs: number[] = [];
  for (const card of mrzCards) {
    const img = await degrade(card, d);
    const z = img.boxes.mrzZone;
    if (!z) continue;
    const m = Math.round(z.height * 0.12);
    const left = Math.max(0, z.x - m);
    const top = Math.max(0, z.y - m);
    const crop = await sharp(img.image)
      .extract({
        left,
        top,
        width: Math.min(img.width, z.x + z.width + m) - left,
        height: Math.min(img.height, z.y + z.height + m) - top,
      })
      .png()
      .toBuffer();
    const r = await reader.read(crop);
    mrzMs.push(r.ms);
    const got = r.lines?.map((l) => l.text) ?? [];
    const truth = card.truth.mrzLines ?? ['', '', ''];
    lines += truth.filter((t, i) => got[i] === t).length;
    const parsed = parseTd1(got, { referenceDate: TODAY });
    const right = parsed.lines[0] === truth[0] && parsed.lines[1] === truth[1];
    if (parsed.valid && right) mrzOk++;
    if (parsed.valid && !right) wrongValid++;
  }
  console.log(
    `| ${name} | ${pdfOk}/${pdfCards.length} | ${pct(pdfMs, 0.5).toFixed(0)} / ${pct(pdfMs, 0.95).toFixed(0)} | ${mrzOk}/${mrzCards.length} | ${lines}/${mrzCards.length * 3} | ${pct(mrzMs, 0.5).toFixed(0)} | ${wrongValid} |`,
  );
}
await reader.close();

console.log('\nPDF417 by render resolution (clean, 0.254 mm modules):');
for (const dpi of [300, 225, 200, 150]) {
  let ok = 0;
  for (const p of people) {
    const card = await renderFront2012(p, { dpi });
    const r = await decodePdf417(card.image, { timeBudgetMs: 2500 });
    if (r && Buffer.from(r.bytes).equals(card.truth.payloadBytes ?? Buffer.alloc(0))) ok++;
  }
  console.log(`  ${dpi} dpi: ${ok}/${people.length}`);
}
