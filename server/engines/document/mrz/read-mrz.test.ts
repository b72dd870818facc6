import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { PEOPLE } from '../../../../test/dni/dni-person.js';
import { renderBack2012 } from '../../../../test/dni/synthetic-card.js';
import { estimateSkew } from '../skew.js';
import { MrzReader, mrzLineBands, normaliseMrzLine } from './read-mrz.js';
import { parseTd1 } from './td1-parser.js';

describe('normaliseMrzLine', () => {
  it('pads with filler or cuts to 30, dropping characters outside the MRZ alphabet', () => {
    expect(normaliseMrzLine('IDARG30111222<5')).toBe('IDARG30111222<5<<<<<<<<<<<<<<<');
    expect(normaliseMrzLine('idarg 30111222<5' + '<'.repeat(20))).toHaveLength(30);
    expect(normaliseMrzLine('AB«C')).toBe('ABC' + '<'.repeat(27));
  });
});

describe('estimateSkew', () => {
  it('finds the rotation of the MRZ lines within half a degree', async () => {
    const card = await renderBack2012(PEOPLE.ordinary!);
    const z = card.truth.boxes.mrzZone!;
    const zone = await sharp(card.image)
      .extract({ left: z.x - 20, top: z.y - 20, width: z.width + 40, height: z.height + 40 })
      .png()
      .toBuffer();
    for (const deg of [0, 3, -5, 9]) {
      const { data, info } = await sharp(await sharp(zone).rotate(deg, { background: '#fff' }).png().toBuffer())
        .greyscale()
        .resize({ width: 320 })
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(Math.abs(estimateSkew(new Uint8Array(data), info.width, info.height) - deg)).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('MrzReader', () => {
  const reader = new MrzReader({ poolSize: 1 });
  afterAll(() => reader.close());

  it('finds the three line bands of a zone and reads them one by one (the fallback path)', async () => {
    const card = await renderBack2012(PEOPLE.sexX ?? Object.values(PEOPLE)[0]!);
    const z = card.truth.boxes.mrzZone!;
    const crop = await sharp(card.image)
      .extract({ left: z.x - 10, top: z.y - 10, width: z.width + 20, height: z.height + 20 })
      .png()
      .toBuffer();
    const { data, info } = await sharp(crop).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect(mrzLineBands(new Uint8Array(data), info.width, info.height)).toHaveLength(3);
    const r = await reader.read(crop, { mode: 'lines' });
    expect(r.mode).toBe('lines');
    expect(r.lines?.map((l) => l.text)).toEqual(card.truth.mrzLines);
    expect(r.lines?.every((l) => l.confidence > 50)).toBe(true);
    const parsed = parseTd1(r.lines?.map((l) => l.text) ?? []);
    expect(parsed.valid).toBe(true);
    expect(parsed.sex).toBe('X');
  });

  it('returns no lines for an image without an MRZ', async () => {
    const blank = await sharp({ create: { width: 600, height: 150, channels: 3, background: '#f4f4f4' } })
      .png()
      .toBuffer();
    expect((await reader.read(blank)).lines).toBeNull();
  });
});
