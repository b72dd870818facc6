import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPixels } from '../../../../test/dni/card-pixels.js';
import { renderRandomCard } from '../../../../test/dni/random-card.js';
import { defaultModelsDir } from '../../models-dir.js';
import { TextLineDetector } from './detect-text-lines.js';
import { overlapShare } from './text-lines.js';

let detector: TextLineDetector;
beforeAll(async () => {
  detector = await TextLineDetector.load(defaultModelsDir());
}, 60_000);
afterAll(() => detector?.close());

describe('TextLineDetector', () => {
  it('finds every printed line of cards of other layouts, labels and values, rows apart', async () => {
    for (const [seed, side] of [
      [20_003, 'front-2012'],
      [20_004, 'back-2012'],
      [20_005, 'front-2009'],
    ] as const) {
      const card = await renderRandomCard(seed, side);
      const boxes = await detector.detect(await cardPixels(card.image));
      const lines = card.truth.text
        .flatMap((t) => t.lines)
        .filter((l) => l.box.height >= 8 && l.text.trim().length >= 2)
        .map((l) => ({ x0: l.box.x, y0: l.box.y, x1: l.box.x + l.box.width, y1: l.box.y + l.box.height }));
      const holding = (line: (typeof lines)[number]) => boxes.filter((b) => overlapShare(b, line) > 0.6);
      const covered = lines.filter((l) => holding(l).length > 0);
      expect(covered.length / lines.length, `${seed} ${side}`).toBeGreaterThan(0.9);
      // Lines one above the other are never one box (a label beside its value may be).
      for (const a of lines)
        for (const b of lines)
          if (a.y1 <= b.y0)
            expect(
              holding(a).filter((box) => holding(b).includes(box)),
              `${seed} ${side}`,
            ).toEqual([]);
    }
  }, 60_000);

  it('leaves out what a mask covers, and finds nothing on a blank side', async () => {
    const card = await renderRandomCard(20_004, 'back-2012');
    const image = await cardPixels(card.image);
    const all = await detector.detect(image);
    const lowerHalf = { x0: 0, y0: image.height / 2, x1: image.width, y1: image.height };
    const masked = await detector.detect(image, [lowerHalf]);
    expect(masked.length).toBeLessThan(all.length);
    expect(masked.every((b) => overlapShare(lowerHalf, b) <= 0.5)).toBe(true);
    const blank = await sharp({ create: { width: 1011, height: 638, channels: 3, background: '#eeeeee' } })
      .png()
      .toBuffer();
    expect(await detector.detect(await cardPixels(blank))).toEqual([]);
  }, 60_000);
});
