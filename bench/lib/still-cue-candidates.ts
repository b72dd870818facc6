// Candidate single-still presentation cues measured by eval:pad beside the ones the product
// computes (server/engines/face/analysis/still-cues.ts): the tuning split chooses among them all.
import {
  innerFace,
  lumaSquare,
  powerSpectrum,
  quantile,
  radiusOf,
  saturationOf,
  stillCues,
  type Rgb,
} from '../../server/engines/index.js';
import type { Box, Point } from '../../server/imaging/index.js';

/** The face oval's bounding box: jaw line across, brows to chin. */
function faceOval(lm: readonly Point[]): Box {
  const xs = lm.slice(0, 17).map((p) => p[0]);
  const top = Math.min(...lm.slice(17, 27).map((p) => p[1]));
  const x0 = Math.min(...xs);
  return { x: x0, y: top, width: Math.max(4, Math.max(...xs) - x0), height: Math.max(4, lm[8]![1] - top) };
}

function pixelsIn(img: Rgb, box: Box, visit: (r: number, g: number, b: number) => void): number {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(img.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(img.height, Math.ceil(box.y + box.height));
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 3;
      visit(img.rgb[i]!, img.rgb[i + 1]!, img.rgb[i + 2]!);
      n++;
    }
  }
  return n;
}

/** The inner face's share of spectral energy at radius 0.2 or more (of all beyond 0.04). */
function highShare(img: Rgb, lm: readonly Point[]): number {
  const sq = lumaSquare(img, innerFace(lm));
  if (!sq) return NaN;
  const { n } = sq;
  const power = powerSpectrum(sq.patch, n);
  let high = 0;
  let all = 0;
  for (let v = 0; v < n; v++) {
    for (let u = 0; u < n; u++) {
      const r = radiusOf(u, v, n);
      if (r < 0.04) continue;
      all += power[v * n + u]!;
      if (r >= 0.2) high += power[v * n + u]!;
    }
  }
  return all > 0 ? high / all : 0;
}

/** Colour gamut and highlights of the face, and the frame's black level. */
function colourCues(img: Rgb, lm: readonly Point[]) {
  const sats: number[] = [];
  const lumas: number[] = [];
  let cb = 0;
  let cr = 0;
  let cb2 = 0;
  let cr2 = 0;
  let specular = 0;
  const n = pixelsIn(img, faceOval(lm), (r, g, b) => {
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    const s = saturationOf(r, g, b);
    sats.push(s);
    lumas.push(y);
    const pb = (b - y) / 255;
    const pr = (r - y) / 255;
    cb += pb;
    cr += pr;
    cb2 += pb * pb;
    cr2 += pr * pr;
    if (y > 235 && s < 0.2) specular++;
  });
  const frameLumas: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt((img.width * img.height) / 40_000)));
  for (let y = 0; y < img.height; y += step) {
    for (let x = 0; x < img.width; x += step) {
      const i = (y * img.width + x) * 3;
      frameLumas.push(0.299 * img.rgb[i]! + 0.587 * img.rgb[i + 1]! + 0.114 * img.rgb[i + 2]!);
    }
  }
  const m = Math.max(1, n);
  return {
    faceSaturation: quantile(sats, 0.5),
    faceChromaSpread: Math.sqrt(Math.max(0, cb2 / m - (cb / m) ** 2) + Math.max(0, cr2 / m - (cr / m) ** 2)),
    faceBlueShift: cb / m - cr / m,
    specularShare: specular / m,
    faceDynamicRange: (quantile(lumas, 0.98) - quantile(lumas, 0.02)) / 255,
    frameBlackLevel: quantile(frameLumas, 0.01) / 255,
  };
}

/** Every candidate cue of one still, by name (NaN where it could not be measured). */
export function candidateCues(img: Rgb, lm: readonly Point[]): Record<string, number> {
  const product = stillCues(img, lm);
  const { frameBlackLevel, ...face } = colourCues(img, lm);
  return {
    highShare: highShare(img, lm),
    moirePeak: product.moirePeak!,
    detailRatio: product.detailRatio!,
    ...face,
    frameSaturationP95: product.frameSaturationP95!,
    frameBlackLevel,
  };
}
