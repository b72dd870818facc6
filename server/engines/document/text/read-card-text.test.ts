import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPixels } from '../../../../test/dni/card-pixels.js';
import { renderRandomCard } from '../../../../test/dni/random-card.js';
import { defaultModelsDir } from '../../models-dir.js';
import { TextLineDetector } from './detect-text-lines.js';
import { readDniFields } from './dni-text-fields.js';
import { parseFreeText, parsePlaceOfBirth } from './dni-text-values.js';
import { CardTextReader } from './read-card-text.js';
import { groupWords } from './text-lines.js';

let detector: TextLineDetector;
let reader: CardTextReader;
beforeAll(async () => {
  detector = await TextLineDetector.load(defaultModelsDir());
  reader = new CardTextReader();
  await reader.ready();
}, 60_000);
afterAll(async () => {
  await detector?.close();
  await reader?.close();
});

describe('CardTextReader.readLines', () => {
  it('keeps each word to its own line, so a place of birth wrapped under accented words is read whole', async () => {
    // Seed 26's back sets "CONCEPCIÓN DEL URUGUAY, ENTRE" beside its label and "RÍOS" tight under it.
    const card = await renderRandomCard(26, 'back-2012');
    const image = await cardPixels(card.image);
    const boxes = await detector.detect(image);
    const words = await reader.readLines(image, boxes);
    const truth = card.truth.text.find((t) => t.kind === 'value' && t.field === 'placeOfBirth')!.text;
    const { fields } = readDniFields(groupWords(words), 'back');
    expect(parsePlaceOfBirth(fields.placeOfBirth?.text ?? '')).toBe(truth.toUpperCase());
  }, 60_000);

  it('reads a line whose box reaches into a wrapped line close below it, on a side left slightly skewed', async () => {
    // Seed 34's 2009 back wraps "- BUENOS AIRES" tight under a long address; turned 0.6° (what
    // levelling leaves), the two lines' boxes overlap and the first band held the second's tops.
    const card = await renderRandomCard(34, 'back-2009');
    const flat = await cardPixels(card.image);
    const turned = await sharp(card.image).rotate(0.6, { background: '#ffffff' }).toBuffer({ resolveWithObject: true });
    const left = Math.floor((turned.info.width - flat.width) / 2);
    const top = Math.floor((turned.info.height - flat.height) / 2);
    const image = await cardPixels(
      await sharp(turned.data).extract({ left, top, width: flat.width, height: flat.height }).png().toBuffer(),
    );
    const words = await reader.readLines(image, await detector.detect(image));
    const truth = card.truth.text.find((t) => t.kind === 'value' && t.field === 'address')!.text;
    const { fields } = readDniFields(groupWords(words), 'back');
    expect(parseFreeText(fields.address?.text ?? '')).toBe(truth.toUpperCase());
  }, 60_000);
});
