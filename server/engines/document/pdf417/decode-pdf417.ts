import sharp, { type Sharp } from 'sharp';
import { defaultModelsDir } from '../../models-dir.js';
import { estimateSkew } from '../skew.js';
import { decodePayloadBytes } from './payload-text.js';
import { readPdf417Js } from './zxing-js-reader.js';
import { type GreyImage, type Pdf417Read, readPdf417Wasm } from './zxing-wasm-reader.js';

/**
 * Finds and decodes a PDF417 in a photo or scan. zxing-wasm first (fast, and the better detector on
 * whole frames), @zxing/library second (reads crops without a start pattern), each on a chain of
 * cheap variants of the image until one decodes or the time budget runs out:
 * original -> deskewed by the bars' projection profile -> other binarizer -> normalised contrast ->
 * the symbol's region enlarged, then also sharpened (blur) -> rotations ±4/8/12° (zxing-cpp
 * tolerates only ~±4° of skew).
 */

export type Pdf417Input = Uint8Array | { data: Uint8Array; width: number; height: number; channels: 1 };

export interface Pdf417Attempt {
  step: string;
  decoder: 'zxing-wasm' | 'zxing-js';
  ok: boolean;
  ms: number;
}

export interface Pdf417Decoded {
  /** The payload decoded UTF-8 if valid, else Latin-1 (the symbol has no ECI to say which). */
  text: string;
  bytes: Uint8Array;
  charset: 'utf-8' | 'latin1';
  decoder: 'zxing-wasm' | 'zxing-js';
  /** The chain step that decoded. */
  step: string;
  /** The symbol's corner points in the input image, when the step that decoded did not move it. */
  corners: [number, number][] | null;
  attempts: Pdf417Attempt[];
  ms: number;
}

export interface DecodePdf417Options {
  modelsDir?: string;
  /** Stop trying variants after this long (one attempt already started is finished). */
  timeBudgetMs?: number;
  /** Report every attempt even on failure (the attempts array is also on the result). */
  onAttempt?: (a: Pdf417Attempt) => void;
}

const ROTATIONS = [4, -4, 8, -8, 12, -12];
/** Steps that decode the image as given: the symbol's corners are the input's. */
const UNMOVED = new Set(['original', 'global-binarizer', 'normalise']);
const MAX_UPSCALE_SIDE = 2400;

async function toGrey(s: Sharp): Promise<GreyImage> {
  const { data, info } = await s.greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), width: info.width, height: info.height };
}

function fromGrey(img: GreyImage): Sharp {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } });
}

/**
 * The PDF417's region: the largest cluster of 16-pixel blocks dense in horizontal contrast steps
 * (bars a few pixels wide), with a block of margin. Text is dense too, but only in short runs of
 * blocks: a symbol is a solid patch of them. Null when no patch stands out.
 */
export function barcodeRegion(img: GreyImage): { left: number; top: number; width: number; height: number } | null {
  const { data, width: w, height: h } = img;
  const B = 16;
  const bw = Math.floor(w / B);
  const bh = Math.floor(h / B);
  const dense = new Uint8Array(bw * bh);
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++) {
      let n = 0;
      for (let y = by * B; y < by * B + B; y++) {
        const o = y * w;
        for (let x = bx * B + 1; x < bx * B + B; x++) if (Math.abs((data[o + x] ?? 0) - (data[o + x - 1] ?? 0)) > 25) n++;
      }
      dense[by * bw + bx] = n > 0.25 * B * (B - 1) ? 1 : 0;
    }
  // Connected clusters of dense blocks (8-neighbours); the largest is the symbol.
  const seen = new Uint8Array(bw * bh);
  let best: { n: number; x0: number; y0: number; x1: number; y1: number } | null = null;
  for (let i = 0; i < dense.length; i++) {
    if (!dense[i] || seen[i]) continue;
    const stack = [i];
    seen[i] = 1;
    const c = { n: 0, x0: bw, y0: bh, x1: 0, y1: 0 };
    while (stack.length) {
      const j = stack.pop()!;
      const [x, y] = [j % bw, Math.floor(j / bw)];
      c.n++;
      [c.x0, c.x1, c.y0, c.y1] = [Math.min(c.x0, x), Math.max(c.x1, x), Math.min(c.y0, y), Math.max(c.y1, y)];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          const k = ny * bw + nx;
          if (nx >= 0 && ny >= 0 && nx < bw && ny < bh && dense[k] && !seen[k]) {
            seen[k] = 1;
            stack.push(k);
          }
        }
    }
    if (!best || c.n > best.n) best = c;
  }
  // A symbol spans several blocks each way and fills most of its box.
  if (!best || best.n < 12 || best.x1 - best.x0 < 3 || best.y1 - best.y0 < 2) return null;
  if (best.n < 0.5 * (best.x1 - best.x0 + 1) * (best.y1 - best.y0 + 1)) return null;
  const left = Math.max(0, (best.x0 - 1) * B);
  const top = Math.max(0, (best.y0 - 1) * B);
  return { left, top, width: Math.min(w, (best.x1 + 2) * B) - left, height: Math.min(h, (best.y1 + 2) * B) - top };
}

export async function decodePdf417(input: Pdf417Input, options: DecodePdf417Options = {}): Promise<Pdf417Decoded | null> {
  const modelsDir = options.modelsDir ?? defaultModelsDir();
  const budget = options.timeBudgetMs ?? 2000;
  const t0 = performance.now();
  const attempts: Pdf417Attempt[] = [];
  const base =
    input instanceof Uint8Array
      ? sharp(input).rotate()
      : sharp(input.data, { raw: { width: input.width, height: input.height, channels: 1 } });
  const original = await toGrey(base);

  const tryBoth = async (step: string, img: GreyImage, which: 'both' | 'global' = 'both'): Promise<Pdf417Decoded | null> => {
    const run = async (
      decoder: Pdf417Attempt['decoder'],
      fn: () => Promise<Pdf417Read | null> | Pdf417Read | null,
    ): Promise<Pdf417Decoded | null> => {
      const t = performance.now();
      const read = await fn();
      const a = { step, decoder, ok: read !== null, ms: Math.round(performance.now() - t) };
      attempts.push(a);
      options.onAttempt?.(a);
      if (!read) return null;
      const { text, charset } = decodePayloadBytes(read.bytes);
      const inPlace = img.width === original.width && img.height === original.height && UNMOVED.has(step);
      return {
        text,
        bytes: read.bytes,
        charset,
        decoder,
        step,
        corners: inPlace ? read.corners : null,
        attempts,
        ms: Math.round(performance.now() - t0),
      };
    };
    const binW = which === 'global' ? 'GlobalHistogram' : 'LocalAverage';
    const binJ = which === 'global' ? 'global' : 'hybrid';
    return (
      (await run('zxing-wasm', () => readPdf417Wasm(modelsDir, img, binW))) ??
      (await run('zxing-js', () => readPdf417Js(img, binJ)))
    );
  };

  const region = barcodeRegion(original);
  /** The symbol's region (or the whole image) enlarged twice, sharpened with this sigma (0: not). */
  const cropUpscaled = async (sigma: number, times = 2): Promise<GreyImage> => {
    const s = region ? fromGrey(original).extract(region) : fromGrey(original);
    const w = region ? region.width : original.width;
    const h = region ? region.height : original.height;
    const k = Math.min(times, MAX_UPSCALE_SIDE / Math.max(w, h));
    const up = s.normalise().resize(Math.round(w * k), Math.round(h * k), { kernel: 'cubic' });
    return toGrey(sigma > 0 ? up.sharpen({ sigma: (sigma * k) / 2, m1: 2, m2: 8 }) : up);
  };
  let skipDeskew = false;
  const outOfTime = (): boolean => performance.now() - t0 > budget;
  const steps: [string, () => Promise<GreyImage>, ('both' | 'global')?][] = [
    ['original', async () => original],
    [
      'deskew',
      async () => {
        // Bars are vertical: turned 90° clockwise they are lines whose skew is the image's skew.
        const small = await toGrey(fromGrey(original).resize({ width: 320 }).rotate(90));
        const skew = estimateSkew(small.data, small.width, small.height);
        skipDeskew = Math.abs(skew) < 2; // within zxing's own tolerance: the step would repeat 'original'
        return skipDeskew ? original : toGrey(fromGrey(original).rotate(-skew, { background: '#ffffff' }));
      },
    ],
    ['global-binarizer', async () => original, 'global'],
    ['normalise', () => toGrey(fromGrey(original).normalise())],
    ['crop-upscale', () => cropUpscaled(0)],
    // A blurred symbol (a hand that moved, a lens out of focus): its crop enlarged and sharpened
    // back, so the narrow bars separate again before binarisation.
    ['crop-sharpen', () => cropUpscaled(2)],
    ['crop-sharpen-strong', () => cropUpscaled(3)],
    ['crop-sharpen-x3', () => cropUpscaled(3, 3)],
    // Rotations last: the rectified card is level; they serve a card that was not found cleanly.
    ...ROTATIONS.map(
      (deg) =>
        [
          `rotate${deg > 0 ? '+' : ''}${deg}`,
          () => toGrey(fromGrey(original).normalise().rotate(deg, { background: '#ffffff' })),
        ] as [string, () => Promise<GreyImage>],
    ),
  ];
  // No patch of bars anywhere: the quick looks only (a side without a barcode, the 2009 front or a
  // 2012 back, costs no more than them).
  const chain = region ? steps : steps.filter(([step]) => step === 'original' || step === 'global-binarizer');
  for (const [step, make, which] of chain) {
    if (outOfTime()) break;
    const img = await make();
    if (step === 'deskew' && skipDeskew) continue;
    const hit = await tryBoth(step, img, which);
    if (hit) return hit;
  }
  return null;
}
