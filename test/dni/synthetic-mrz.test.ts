import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MrzReader } from '../../server/engines/document/mrz/read-mrz.js';
import { parseTd1 } from '../../server/engines/document/mrz/td1-parser.js';
import { mrzNamesEquivalent } from '../../server/engines/document/mrz/transliterate.js';
import { PEOPLE } from './dni-person.js';
import { type Box, DEGRADATIONS, degrade, type RenderedCard, renderBack2012 } from './synthetic-card.js';

const TODAY = new Date(2025, 5, 1);
// Degradations the reader must get right from an axis-aligned crop of the zone (it deskews ±12°),
// and one it must not get wrong: glare over the MRZ (its result may only be "not valid").
const CASES = ['clean', 'mild', 'blur1', 'jpeg60', 'noise8', 'down66', 'tilt', 'perspective', 'rotate6'] as const;
const MUST_NOT_LIE = ['glareLow'] as const;

let reader: MrzReader;
beforeAll(async () => {
  // One reader (2 warm workers) for the whole file: starting tesseract costs 0.2-0.5 s per worker.
  reader = new MrzReader();
  await reader.ready();
});
afterAll(() => reader?.close());

async function crop(image: Buffer, box: Box, w: number, h: number): Promise<Buffer> {
  const m = Math.round(box.height * 0.12);
  const left = Math.max(0, box.x - m);
  const top = Math.max(0, box.y - m);
  return sharp(image)
    .extract({ left, top, width: Math.min(w, box.x + box.width + m) - left, height: Math.min(h, box.y + box.height + m) - top })
    .png()
    .toBuffer();
}

// OCR over 4 cards x many degradations: minutes on a loaded 2-core machine, seconds on a quiet one.
describe('synthetic card backs: render -> MRZ OCR -> parse == ground truth', { timeout: 240_000 }, () => {
  it('reads every field with valid check digits, clean and mildly degraded', async () => {
    const cards: RenderedCard[] = [];
    for (const person of Object.values(PEOPLE)) cards.push(await renderBack2012(person));
    const table: Record<string, { exactLines: number; validDocs: number; n: number; ms: number[] }> = {};
    const failures: string[] = [];
    for (const name of [...CASES, ...MUST_NOT_LIE]) {
      const row = (table[name] = { exactLines: 0, validDocs: 0, n: 0, ms: [] as number[] });
      for (const card of cards) {
        const img = await degrade(card, DEGRADATIONS[name] ?? {});
        const zone = img.boxes.mrzZone;
        if (!zone) throw new Error('no MRZ box');
        const r = await reader.read(await crop(img.image, zone, img.width, img.height));
        row.n++;
        row.ms.push(r.ms);
        const truth = card.truth.mrzLines ?? ['', '', ''];
        const got = r.lines?.map((l) => l.text) ?? [];
        row.exactLines += truth.filter((t, i) => got[i] === t).length;
        const parsed = parseTd1(got, { referenceDate: TODAY });
        const p = card.truth.person;
        const right =
          parsed.valid &&
          parsed.documentNumber === p.documentNumber &&
          parsed.sex === p.sex &&
          JSON.stringify(parsed.birthDate.date) === JSON.stringify(p.birthDate) &&
          JSON.stringify(parsed.expiryDate.date) === JSON.stringify(p.expiryDate) &&
          parsed.issuingState === 'ARG' &&
          parsed.nationality === 'ARG' &&
          mrzNamesEquivalent(parsed.lines[2], p.surname, p.givenNames);
        if (right) row.validDocs++;
        else failures.push(`${name} ${p.surname}: ${JSON.stringify(got)} ${parsed.problems.slice(0, 2).join(', ')}`);
        // The one thing that must never happen: a wrong value with every check passing.
        if (parsed.valid) expect(parsed.lines.slice(0, 2)).toEqual(truth.slice(0, 2));
      }
    }
    console.log(
      'synthetic MRZ (4 card backs, 300 dpi, zone crop):\n' +
        Object.entries(table)
          .map(([k, v]) => {
            v.ms.sort((a, b) => a - b);
            return `  ${k.padEnd(7)} lines ${v.exactLines}/${v.n * 3}  docs right+valid ${v.validDocs}/${v.n}  p50 ${v.ms[Math.floor(v.ms.length / 2)]} ms  max ${v.ms[v.ms.length - 1]} ms`;
          })
          .join('\n') +
        (failures.length ? `\n  failures:\n    ${failures.join('\n    ')}` : ''),
    );
    expect(table.clean?.validDocs).toBe(cards.length);
    expect(table.mild?.validDocs).toBe(cards.length);
    const all = CASES.reduce((s, k) => s + (table[k]?.validDocs ?? 0), 0);
    expect(all).toBeGreaterThanOrEqual(CASES.length * cards.length - 2);
  });
});
