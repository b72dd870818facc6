// The pixel cues a single still is judged on (singleFrame 'judge'); the radix-2 FFT is written
// here because no package we ship offers a 2-D spectrum of a small patch.
import type { Box, Point } from '../../../imaging/index.js';

export interface Rgb {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** The inner face (eyes to mouth, outer eye corners across) from face-api's 68 points. */
export function innerFace(lm: readonly Point[]): Box {
  const x0 = Math.min(lm[36]![0], lm[17]![0]);
  const x1 = Math.max(lm[45]![0], lm[26]![0]);
  const y0 = Math.min(lm[37]![1], lm[44]![1]);
  const y1 = Math.max(lm[48]![1], lm[54]![1]);
  return { x: x0, y: y0, width: Math.max(4, x1 - x0), height: Math.max(4, y1 - y0) };
}

export const saturationOf = (r: number, g: number, b: number): number => {
  const max = Math.max(r, g, b);
  return max === 0 ? 0 : (max - Math.min(r, g, b)) / max;
};

export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** In-place radix-2 FFT of one row (re, im) of length a power of two. */
function fft1(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const ar = re[i + k + len / 2]!;
        const ai = im[i + k + len / 2]!;
        const tr = ar * wr - ai * wi;
        const ti = ar * wi + ai * wr;
        re[i + k + len / 2] = re[i + k]! - tr;
        im[i + k + len / 2] = im[i + k]! - ti;
        re[i + k]! += tr;
        im[i + k]! += ti;
      }
    }
  }
}

/** Power spectrum of a square luma patch (Hann-windowed, mean removed), n a power of two. */
export function powerSpectrum(patch: Float64Array, n: number): Float64Array {
  let mean = 0;
  for (const v of patch) mean += v;
  mean /= patch.length;
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const w = (0.5 - 0.5 * Math.cos((2 * Math.PI * x) / (n - 1))) * (0.5 - 0.5 * Math.cos((2 * Math.PI * y) / (n - 1)));
      re[y * n + x] = (patch[y * n + x]! - mean) * w;
    }
  }
  const rr = new Float64Array(n);
  const ri = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    rr.set(re.subarray(y * n, y * n + n));
    ri.set(im.subarray(y * n, y * n + n));
    fft1(rr, ri);
    re.set(rr, y * n);
    im.set(ri, y * n);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      rr[y] = re[y * n + x]!;
      ri[y] = im[y * n + x]!;
    }
    fft1(rr, ri);
    for (let y = 0; y < n; y++) {
      re[y * n + x] = rr[y]!;
      im[y * n + x] = ri[y]!;
    }
  }
  const power = new Float64Array(n * n);
  for (let i = 0; i < power.length; i++) power[i] = re[i]! * re[i]! + im[i]! * im[i]!;
  return power;
}

/** The largest power-of-two square (16-128 px) of native luma centred in the box, or null. */
export function lumaSquare(img: Rgb, box: Box): { patch: Float64Array; n: number } | null {
  const side = Math.min(box.width, box.height, 128);
  if (side < 16) return null;
  const n = 1 << Math.floor(Math.log2(side));
  const x0 = Math.round(box.x + box.width / 2 - n / 2);
  const y0 = Math.round(box.y + box.height / 2 - n / 2);
  if (x0 < 0 || y0 < 0 || x0 + n > img.width || y0 + n > img.height) return null;
  const patch = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const i = ((y0 + y) * img.width + x0 + x) * 3;
      patch[y * n + x] = 0.299 * img.rgb[i]! + 0.587 * img.rgb[i + 1]! + 0.114 * img.rgb[i + 2]!;
    }
  }
  return { patch, n };
}

/** Each frequency's radius (cycles per pixel) in an n x n spectrum. */
export function radiusOf(u: number, v: number, n: number): number {
  return Math.hypot((u <= n / 2 ? u : u - n) / n, (v <= n / 2 ? v : v - n) / n);
}

/**
 * How peaked the inner face's high frequencies are (log10 of the 99.8th percentile over the
 * median, radius 0.2 or more): a screen's pixel grid beating with the camera's makes moiré peaks.
 */
function moirePeak(img: Rgb, lm: readonly Point[]): number {
  const sq = lumaSquare(img, innerFace(lm));
  if (!sq) return NaN;
  const { n } = sq;
  const power = powerSpectrum(sq.patch, n);
  const ring: number[] = [];
  for (let v = 0; v < n; v++) for (let u = 0; u < n; u++) if (radiusOf(u, v, n) >= 0.2) ring.push(power[v * n + u]!);
  const med = quantile(ring, 0.5);
  return med > 0 ? Math.log10(quantile(ring, 0.998) / med) : 0;
}

/** Fine detail against coarser detail on the inner face: a recaptured picture loses the finest scale first. */
function detailRatio(img: Rgb, lm: readonly Point[]): number {
  const sq = lumaSquare(img, innerFace(lm));
  if (!sq) return NaN;
  const { patch, n } = sq;
  let fine = 0;
  let coarse = 0;
  for (let y = 2; y < n - 2; y++) {
    for (let x = 2; x < n - 2; x++) {
      const c = patch[y * n + x]!;
      fine += Math.abs(4 * c - patch[y * n + x - 1]! - patch[y * n + x + 1]! - patch[(y - 1) * n + x]! - patch[(y + 1) * n + x]!);
      coarse += Math.abs(
        4 * c - patch[y * n + x - 2]! - patch[y * n + x + 2]! - patch[(y - 2) * n + x]! - patch[(y + 2) * n + x]!,
      );
    }
  }
  return coarse > 0 ? fine / coarse : 0;
}

/** The frame's 95th percentile of saturation, on about 40,000 pixels: a screen or a print narrows the gamut. */
function frameSaturationP95(img: Rgb): number {
  const sats: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt((img.width * img.height) / 40_000)));
  for (let y = 0; y < img.height; y += step) {
    for (let x = 0; x < img.width; x += step) {
      const i = (y * img.width + x) * 3;
      sats.push(saturationOf(img.rgb[i]!, img.rgb[i + 1]!, img.rgb[i + 2]!));
    }
  }
  return quantile(sats, 0.95);
}

/** The still cues by the names the still's combination uses (NaN where not measurable). */
export function stillCues(img: Rgb, lm: readonly Point[]): Record<string, number> {
  return { moirePeak: moirePeak(img, lm), detailRatio: detailRatio(img, lm), frameSaturationP95: frameSaturationP95(img) };
}
