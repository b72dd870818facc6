/**
 * Text for the random-layout cards: font families from npm packages (split in two disjoint pools),
 * Pango rendering through sharp with baseline metrics, and greedy word wrapping.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { packageRoot } from '../../server/version.js';
import { escapeMarkup } from './synthetic-card.js';

export type Split = 'tuning' | 'validation';

/** One family as Pango names it (checked with fc-scan) and its two files. */
export interface FontFamily {
  family: string;
  regular: string;
  bold: string;
}

// From the package root, so that it also resolves when the generator runs compiled.
const requireFromRoot = createRequire(path.join(packageRoot(), 'package.json'));

function expoFamily(family: string, pkg: string, stem: string): FontFamily {
  const file = (weight: string): string => requireFromRoot.resolve(`@expo-google-fonts/${pkg}/${weight}/${stem}_${weight}.ttf`);
  return { family, regular: file('400Regular'), bold: file('700Bold') };
}

let pools: Record<Split, readonly FontFamily[]> | undefined;

/**
 * Half the families for tuning and the other half for validation: a reader tuned on the first is
 * measured on faces it never saw. Each pool mixes wide, narrow and humanist designs.
 */
export function fontPool(split: Split): readonly FontFamily[] {
  pools ??= {
    tuning: [
      {
        family: 'DejaVu Sans',
        regular: requireFromRoot.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
        bold: requireFromRoot.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
      },
      expoFamily('Roboto', 'roboto', 'Roboto'),
      expoFamily('PT Sans', 'pt-sans', 'PTSans'),
      expoFamily('IBM Plex Sans', 'ibm-plex-sans', 'IBMPlexSans'),
      expoFamily('Lato', 'lato', 'Lato'),
    ],
    validation: [
      expoFamily('Open Sans', 'open-sans', 'OpenSans'),
      expoFamily('Source Sans 3', 'source-sans-3', 'SourceSans3'),
      expoFamily('Roboto Condensed', 'roboto-condensed', 'RobotoCondensed'),
      expoFamily('Noto Sans', 'noto-sans', 'NotoSans'),
      expoFamily('Fira Sans', 'fira-sans', 'FiraSans'),
    ],
  };
  return pools[split];
}

export interface TextStyle {
  font: FontFamily;
  bold: boolean;
  pt: number;
  colour: string;
  /** Opacity 0-1 (watermarks); opaque when absent. */
  alpha?: number;
}

/** A rendered line: RGBA pixels cropped to the ink horizontally, with the baseline located. */
export interface TextRun {
  text: string;
  input: Buffer;
  width: number;
  height: number;
  /** Pixels from the top of the layer down to the baseline. */
  baseline: number;
  /** The visible pixels' bounding box, relative to the layer. */
  ink: { x: number; y: number; width: number; height: number };
}

/**
 * An invisible tail (alpha 1/65535 rounds to 0) that spans from the top of Á to the bottom of g:
 * libvips crops a text image to its ink, and this makes every line's crop the same height, so the
 * baseline sits at a known depth whatever the letters.
 */
const STRUT = '<span fgalpha="1">Ág</span>';

interface Metrics {
  /** Top of Á to the baseline, and top of Á to the bottom of g, in pixels. */
  ascent: number;
  full: number;
}

const metricsCache = new Map<string, Promise<Metrics>>();

async function rawText(markup: string, style: TextStyle, dpi: number) {
  const { data, info } = await sharp({
    text: {
      text: markup,
      fontfile: style.bold ? style.font.bold : style.font.regular,
      // The comma ends the family list, so a family ending in a number (Source Sans 3) stays whole.
      font: `${style.font.family}, ${style.bold ? 'Bold ' : ''}${style.pt.toFixed(2)}`,
      dpi,
      rgba: true,
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function metricsOf(style: TextStyle, dpi: number): Promise<Metrics> {
  const key = `${style.bold ? style.font.bold : style.font.regular}|${style.pt.toFixed(2)}|${dpi}`;
  let m = metricsCache.get(key);
  if (!m) {
    m = Promise.all([rawText('ÁH', style, dpi), rawText('Ág', style, dpi)]).then(([a, f]) => ({
      ascent: a.height,
      full: f.height,
    }));
    metricsCache.set(key, m);
  }
  return m;
}

/** Bounding box of the pixels with alpha above zero. */
function inkOf(data: Buffer, width: number, height: number): TextRun['ink'] {
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if ((data[(y * width + x) * 4 + 3] ?? 0) > 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return x1 < 0 ? { x: 0, y: 0, width: 0, height: 0 } : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

function cropColumns(data: Buffer, width: number, height: number, keep: number): Buffer {
  const out = Buffer.alloc(keep * height * 4);
  for (let y = 0; y < height; y++) data.copy(out, y * keep * 4, y * width * 4, (y * width + keep) * 4);
  return out;
}

const alphaAttr = (s: TextStyle): string =>
  s.alpha === undefined ? '' : ` fgalpha="${Math.max(1, Math.round(s.alpha * 65535))}"`;

/** Renders lines for one card; measuring a candidate line twice costs nothing. */
export class TextEngine {
  private readonly cache = new Map<string, Promise<TextRun>>();
  constructor(readonly dpi: number) {}

  run(text: string, style: TextStyle): Promise<TextRun> {
    const key = `${style.font.family}|${style.bold}|${style.pt.toFixed(2)}|${style.colour}|${style.alpha ?? 1}|${text}`;
    let r = this.cache.get(key);
    if (!r) {
      r = this.render(text, style);
      this.cache.set(key, r);
    }
    return r;
  }

  private async render(text: string, style: TextStyle): Promise<TextRun> {
    const [raw, m] = await Promise.all([
      rawText(`<span foreground="${style.colour}"${alphaAttr(style)}>${escapeMarkup(text)}</span>${STRUT}`, style, this.dpi),
      metricsOf(style, this.dpi),
    ]);
    const ink = inkOf(raw.data, raw.width, raw.height);
    const width = Math.max(1, ink.x + ink.width);
    return {
      text,
      input: cropColumns(raw.data, raw.width, raw.height, width),
      width,
      height: raw.height,
      // The strut fixes the bottom at g's descender; anything taller than Á only adds at the top.
      baseline: raw.height - (m.full - m.ascent),
      ink,
    };
  }

  /** Top of Á to baseline and baseline to bottom of g, for spacing lines before drawing them. */
  async metrics(style: TextStyle): Promise<{ ascent: number; descent: number }> {
    const m = await metricsOf(style, this.dpi);
    return { ascent: m.ascent, descent: m.full - m.ascent };
  }

  /** Greedy word wrap into at most `maxLines` lines of `maxWidth` pixels, or null if it cannot fit. */
  async wrap(text: string, style: TextStyle, maxWidth: number, maxLines: number): Promise<TextRun[] | null> {
    const words = text.split(' ').filter(Boolean);
    const lines: TextRun[] = [];
    let current = '';
    for (const word of words) {
      const candidate = current ? `${current} ${word}` : word;
      if ((await this.run(candidate, style)).width <= maxWidth) {
        current = candidate;
        continue;
      }
      if (!current) return null; // one word wider than the room
      lines.push(await this.run(current, style));
      current = word;
      if ((await this.run(current, style)).width > maxWidth) return null;
    }
    if (current) lines.push(await this.run(current, style));
    return lines.length <= maxLines ? lines : null;
  }
}
