import sharp, { type Sharp } from 'sharp';
import { defaultModelsDir } from '../../models-dir.js';
import { estimateSkew } from '../skew.js';
import { decodePayloadBytes } from './payload-text.js';
import { readPdf417Js } from './zxing-js-reader.js';
import { type GreyImage, readPdf417Wasm } from './zxing-wasm-reader.js';

/**
 * Finds and decodes a PDF417 in a photo or scan. zxing-wasm first (fast, and the better detector on
 * whole frames), @zxing/library second (reads crops without a start pattern), each on a chain of
 * cheap variants of the image until one decodes or the time budget runs out:
 * original -> deskewed by the bars' projection profile -> other binarizer -> normalised contrast ->
 * rotations ±4/8/12° (zxing-cpp tolerates only ~±4° of skew) -> crop to the barcode-like region and
 * upscale 2x.
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
const MAX_UPSCALE_SIDE = 2400;

async function toGrey(s: Sharp): Promise<GreyImage> {
  const { data, info } = await s.greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), width: info.width, height: info.height };
}

function fromGrey(img: GreyImage): Sharp {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } });
}

/**
 * The bounding box of the region dense in strong horizontal edges (a PDF417 is mostly vertical bar
 * edges), with a margin; null when nothing stands out.
 */
export function barcodeRegion(img: GreyImage): { left: number; top: number; width: number; height: number } | null {
  const { data, width: w, height: h } = img;
  const cols = new Float64Array(w);
  const rows = new Float64Array(h);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 1; x < w; x++) {
      const g = Math.abs((data[o + x] ?? 0) - (data[o + x - 1] ?? 0));
      if (g > 60) {
        cols[x] = (cols[x] ?? 0) + 1;
        rows[y] = (rows[y] ?? 0) + 1;
      }
    }
  }
  const span = (v: Float64Array): [number, number] | null => {
    const max = Math.max(...v);
    if (max <= 0) return null;
    const win = Math.max(3, Math.round(v.length / 100));
    const smooth = (i: number): number => {
      let s = 0;
      for (let k = Math.max(0, i - win); k <= Math.min(v.length - 1, i + win); k++) s += v[k] ?? 0;
      return s;
    };
    const sm = Array.from(v, (_, i) => smooth(i));
    const peak = Math.max(...sm);
    const first = sm.findIndex((x) => x > peak * 0.35);
    const last = sm.length - 1 - [...sm].reverse().findIndex((x) => x > peak * 0.35);
    return first < 0 || last <= first ? null : [first, last];
  };
  const sx = span(cols);
  const sy = span(rows);
  if (!sx || !sy) return null;
  const mx = Math.round((sx[1] - sx[0]) * 0.08) + 4;
  const my = Math.round((sy[1] - sy[0]) * 0.15) + 4;
  const left = Math.max(0, sx[0] - mx);
  const top = Math.max(0, sy[0] - my);
  const width = Math.min(w, sx[1] + mx) - left;
  const height = Math.min(h, sy[1] + my) - top;
  // Only worth it if the crop actually removes something.
  return width * height < w * h * 0.8 && width > 20 && height > 10 ? { left, top, width, height } : null;
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
      fn: () => Promise<Uint8Array | null> | Uint8Array | null,
    ): Promise<Pdf417Decoded | null> => {
      const t = performance.now();
      const bytes = await fn();
      const a = { step, decoder, ok: bytes !== null, ms: Math.round(performance.now() - t) };
      attempts.push(a);
      options.onAttempt?.(a);
      if (!bytes) return null;
      const { text, charset } = decodePayloadBytes(bytes);
      return { text, bytes, charset, decoder, step, attempts, ms: Math.round(performance.now() - t0) };
    };
    const binW = which === 'global' ? 'GlobalHistogram' : 'LocalAverage';
    const binJ = which === 'global' ? 'global' : 'hybrid';
    return (
      (await run('zxing-wasm', () => readPdf417Wasm(modelsDir, img, binW))) ??
      (await run('zxing-js', () => readPdf417Js(img, binJ)))
    );
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
    ...ROTATIONS.map(
      (deg) =>
        [
          `rotate${deg > 0 ? '+' : ''}${deg}`,
          () => toGrey(fromGrey(original).normalise().rotate(deg, { background: '#ffffff' })),
        ] as [string, () => Promise<GreyImage>],
    ),
    [
      'crop-upscale',
      async () => {
        const r = barcodeRegion(original);
        const s = r ? fromGrey(original).extract(r) : fromGrey(original);
        const w = r ? r.width : original.width;
        const h = r ? r.height : original.height;
        const k = Math.min(2, MAX_UPSCALE_SIDE / Math.max(w, h));
        return toGrey(s.normalise().resize(Math.round(w * k), Math.round(h * k), { kernel: 'cubic' }));
      },
    ],
  ];
  for (const [step, make, which] of steps) {
    if (outOfTime()) break;
    const img = await make();
    if (step === 'deskew' && skipDeskew) continue;
    const hit = await tryBoth(step, img, which);
    if (hit) return hit;
  }
  return null;
}
