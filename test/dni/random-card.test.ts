import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodePdf417 } from '../../server/engines/document/pdf417/decode-pdf417.js';
import { TextEngine } from './card-text.js';
import { back2009Payload, frontPayload } from './dni-person.js';
import {
  CARD_SEEDS,
  fontPool,
  layoutProblems,
  printedDate,
  RANDOM_RENDERERS,
  type RandomRenderedCard,
  type RandomSide,
  randomLayout,
  randomPerson,
  renderRandomCard,
  renderRandomFront2012,
  splitOf,
  tamperedValues,
} from './random-card.js';
import { mrzFor } from './synthetic-card.js';

const SEEDS = [...CARD_SEEDS.tuning.slice(0, 3), ...CARD_SEEDS.validation.slice(0, 3)];
const SIDES = Object.keys(RANDOM_RENDERERS) as RandomSide[];

/** Family names (name IDs 1 and 16) and subfamily (ID 2) from a TrueType file's name table. */
function fontNames(file: string): { families: string[]; subfamily: string } {
  const buf = readFileSync(file);
  const tables = buf.readUInt16BE(4);
  let name = -1;
  for (let i = 0; i < tables; i++)
    if (buf.toString('latin1', 12 + i * 16, 16 + i * 16) === 'name') name = buf.readUInt32BE(20 + i * 16);
  const count = buf.readUInt16BE(name + 2);
  const strings = name + buf.readUInt16BE(name + 4);
  const byId = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const r = name + 6 + i * 12;
    const [platform, id, length, offset] = [
      buf.readUInt16BE(r),
      buf.readUInt16BE(r + 6),
      buf.readUInt16BE(r + 8),
      buf.readUInt16BE(r + 10),
    ];
    if (platform !== 3) continue; // Windows, UTF-16BE
    const raw = buf.subarray(strings + offset, strings + offset + length);
    byId.set(id, Buffer.from(raw).swap16().toString('utf16le'));
  }
  return { families: [byId.get(1), byId.get(16)].filter((x): x is string => !!x), subfamily: byId.get(2) ?? '' };
}

describe('random-layout DNI cards', { timeout: 60_000 }, () => {
  const cards = new Map<string, RandomRenderedCard>();
  beforeAll(async () => {
    for (const seed of SEEDS) for (const side of SIDES) cards.set(`${seed} ${side}`, await renderRandomCard(seed, side));
  }, 120_000);

  it('draws ID-1 cards at 300 dpi with nothing off the card or over other print', async () => {
    for (const [key, card] of cards) {
      const meta = await sharp(card.image).metadata();
      expect([key, meta.format, meta.width, meta.height, card.dpi]).toEqual([key, 'png', 1011, 638, 300]);
      expect([key, ...layoutProblems(card)]).toEqual([key]);
    }
  });

  it("carries the real person's PDF417 and MRZ", async () => {
    for (const [key, card] of cards) {
      const person = card.truth.person;
      const side = card.truth.side;
      if (side === 'back-2012') expect(card.truth.mrzLines).toEqual(mrzFor(person));
      if (side !== 'front-2012' && side !== 'back-2009') continue;
      const r = await decodePdf417(card.image, { timeBudgetMs: 3000 });
      expect(r, `${key}: not decoded`).not.toBeNull();
      const payload = side === 'front-2012' ? frontPayload(person) : back2009Payload(person);
      expect([key, Buffer.from(r?.bytes ?? []).toString('latin1')]).toEqual([key, payload]);
    }
  });

  it('prints every value of the person where truth.text says', () => {
    for (const [key, card] of cards) {
      const p = card.truth.person;
      const values = Object.fromEntries(card.truth.text.filter((t) => t.kind === 'value').map((t) => [t.field, t.text]));
      const L = card.truth.layout;
      if (card.truth.side.startsWith('front')) {
        expect([key, values.surname, values.givenNames, values.dateOfBirth]).toEqual([
          key,
          p.surname,
          p.givenNames,
          printedDate(p.birthDate, L.dates),
        ]);
        expect(values.documentNumber?.replace(/\./g, '')).toBe(p.documentNumber);
      } else {
        expect([key, values.address, values.placeOfBirth]).toEqual([key, p.address, p.placeOfBirth]);
      }
      for (const t of card.truth.text) expect(t.box.width * t.box.height, `${key} ${t.field}`).toBeGreaterThan(0);
    }
  });

  it('gives a seed the same bytes every time and two seeds different layouts', async () => {
    const again = await renderRandomCard(SEEDS[0] ?? 1, 'front-2012');
    expect(again.image.equals(cards.get(`${SEEDS[0]} front-2012`)?.image ?? Buffer.alloc(0))).toBe(true);
    const boxesOf = (c: RandomRenderedCard | undefined) => JSON.stringify([c?.truth.boxes, c?.truth.text.map((t) => t.box)]);
    for (const side of SIDES)
      expect(boxesOf(cards.get(`${SEEDS[0]} ${side}`))).not.toBe(boxesOf(cards.get(`${SEEDS[1]} ${side}`)));
  });

  it('draws tuning and validation cards from disjoint font pools, each family really rendered', async () => {
    const tuning = fontPool('tuning');
    const validation = fontPool('validation');
    expect(tuning.length + validation.length).toBeGreaterThanOrEqual(6);
    const names = new Set(tuning.map((f) => f.family));
    expect(validation.filter((f) => names.has(f.family))).toEqual([]);
    for (const [key, card] of cards) {
      const pool = fontPool(card.truth.layout.split).map((f) => f.family);
      expect(card.truth.layout.split).toBe(splitOf(card.truth.layout.seed));
      for (const f of Object.values(card.truth.layout.fonts)) expect(pool, key).toContain(f.family);
    }
    // The family Pango is asked for is the one in the file (else it would silently fall back).
    const t = new TextEngine(300);
    const seen = new Set<string>();
    for (const f of [...tuning, ...validation]) {
      for (const [file, bold] of [
        [f.regular, false],
        [f.bold, true],
      ] as const) {
        const n = fontNames(file);
        expect(n.families, file).toContain(f.family);
        expect(bold ? ['Bold'] : ['Regular', 'Book'], file).toContain(n.subfamily);
        const run = await t.run('Hamburgefonstiv ÑÁ 0123', { font: f, bold, pt: 8, colour: '#000000' });
        seen.add(run.input.toString('base64'));
      }
    }
    expect(seen.size).toBe(2 * (tuning.length + validation.length));
    expect(() => randomLayout(CARD_SEEDS.validation[0] ?? 10001, 'tuning')).toThrow();
  });

  it("prints a forger's values over the real person's barcode", async () => {
    const seed = CARD_SEEDS.tuning[3] ?? 4;
    const person = randomPerson(seed);
    const tamper = { ...tamperedValues(person, seed), surname: 'PEÑA NÚÑEZ' };
    const card = await renderRandomFront2012(person, randomLayout(seed, 'tuning'), { tamper });
    const r = await decodePdf417(card.image, { timeBudgetMs: 3000 });
    expect(Buffer.from(r?.bytes ?? []).toString('latin1')).toBe(frontPayload(person));
    const values = Object.fromEntries(card.truth.text.filter((t) => t.kind === 'value').map((t) => [t.field, t.text]));
    expect(values.surname).toBe('PEÑA NÚÑEZ');
    if (tamper.givenNames) expect(values.givenNames).toBe(tamper.givenNames);
    if (tamper.documentNumber) expect(values.documentNumber?.replace(/\./g, '')).toBe(tamper.documentNumber);
    if (tamper.dateOfBirth) expect(values.dateOfBirth).toBe(printedDate(tamper.dateOfBirth, card.truth.layout.dates));
    expect(card.truth.tampered).toEqual(tamper);
    expect(card.truth.person).toEqual(person);
  });

  it('invents holders with real dates, 7-8 digit numbers and fields that differ when tampered', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const p = randomPerson(seed);
      expect(p.documentNumber).toMatch(/^[1-9]\d{6,7}$/);
      expect(p.tramite).toMatch(/^\d{11}$/);
      expect(p.birthDate.year).toBeGreaterThanOrEqual(1930);
      expect(p.birthDate.year).toBeLessThanOrEqual(2008);
      expect(p.issueDate.year).toBeGreaterThan(2012);
      expect(p.expiryDate.year).toBe(p.issueDate.year + 15);
      for (const d of [p.birthDate, p.issueDate, p.expiryDate]) {
        const js = new Date(d.year, d.month - 1, d.day);
        expect([js.getFullYear(), js.getMonth() + 1, js.getDate()]).toEqual([d.year, d.month, d.day]);
      }
      const t = tamperedValues(p, seed);
      const changed = Object.keys(t).length;
      expect(changed).toBeGreaterThanOrEqual(1);
      expect(changed).toBeLessThanOrEqual(3);
      if (t.surname) expect(t.surname).not.toBe(p.surname);
      if (t.givenNames) expect(t.givenNames).not.toBe(p.givenNames);
      if (t.documentNumber) {
        const diff = [...t.documentNumber].filter((c, i) => c !== p.documentNumber[i]).length;
        expect([t.documentNumber.length, diff >= 3]).toEqual([p.documentNumber.length, true]);
      }
      if (t.dateOfBirth) expect(Math.abs(t.dateOfBirth.year - p.birthDate.year)).toBeGreaterThanOrEqual(3);
    }
  });
});
