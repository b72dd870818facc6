/** Words as OCR found them on a rectified card side, and the lines the engine builds from them. */
export interface TextBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface TextWord {
  text: string;
  /** OCR confidence 0-100. */
  confidence: number;
  box: TextBox;
}

/** Words on one baseline, close enough to read as one phrase (a label, a value, or both). */
export interface TextLine {
  words: TextWord[];
  box: TextBox;
  text: string;
  /** The lowest word confidence: one doubtful word makes the line doubtful. */
  confidence: number;
}

export const heightOf = (b: TextBox): number => b.y1 - b.y0;

/** The median height of these boxes (0 when there are none): a row's or a side's usual size, whatever one odd box says. */
export function medianHeight(boxes: readonly TextBox[]): number {
  const heights = boxes.map(heightOf).sort((a, b) => a - b);
  return heights.length ? heights[Math.floor(heights.length / 2)]! : 0;
}

/** Uppercase letters and digits without accents; what labels are compared as. */
export function foldText(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
}

function union(boxes: readonly TextBox[]): TextBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

/** The median width of one character in these words (0 when none has letters). */
function charWidth(words: readonly TextWord[]): number {
  const widths = words
    .filter((w) => /[\p{L}\p{N}]/u.test(w.text))
    .map((w) => (w.box.x1 - w.box.x0) / [...w.text].length)
    .sort((a, b) => a - b);
  return widths.length ? widths[Math.floor(widths.length / 2)]! : 0;
}

export function lineOf(words: readonly TextWord[]): TextLine {
  const sorted = [...words].sort((a, b) => a.box.x0 - b.box.x0);
  return {
    words: sorted,
    box: union(sorted.map((w) => w.box)),
    text: sorted.map((w) => w.text).join(' '),
    confidence: Math.min(...sorted.map((w) => w.confidence)),
  };
}

/** The share of b's area inside a. */
export function overlapShare(a: TextBox, b: TextBox): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  const area = (b.x1 - b.x0) * (b.y1 - b.y0);
  return w <= 0 || h <= 0 || area <= 0 ? 0 : (w * h) / area;
}

/**
 * How far b's row lies below a's (negative: above) where the two share columns and sit on
 * different rows, their centres over half the smaller height apart; 0 otherwise.
 */
export function rowBelow(a: TextBox, b: TextBox): number {
  if (Math.min(a.x1, b.x1) <= Math.max(a.x0, b.x0)) return 0;
  const shift = (b.y0 + b.y1) / 2 - (a.y0 + a.y1) / 2;
  return Math.abs(shift) > 0.5 * Math.min(heightOf(a), heightOf(b)) ? shift : 0;
}

/** How much of the shorter box's height the two boxes share vertically (0..1). */
export function verticalOverlap(a: TextBox, b: TextBox): number {
  const shared = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return shared <= 0 ? 0 : shared / Math.min(heightOf(a), heightOf(b));
}

/**
 * Groups words into lines whatever OCR's own segmentation did: words of one row (most of the
 * shorter one's height shared) and of similar size, with a gap under about two character heights.
 * A wider gap starts another line on the same row: the card's columns stay apart.
 */
export function groupWords(words: readonly TextWord[]): TextLine[] {
  const rest = words.filter((w) => w.text.trim() !== '' && heightOf(w.box) > 0).sort((a, b) => a.box.x0 - b.box.x0);
  const lines: TextWord[][] = [];
  for (const word of rest) {
    const punctuation = !/[\p{L}\p{N}]/u.test(word.text);
    const line = lines.find((l) => {
      const last = l[l.length - 1]!;
      // A line's size and row are its letters' ("-" is short and sits mid-height, "/" reaches below the baseline).
      const letters = l.filter((w) => /[\p{L}\p{N}]/u.test(w.text));
      const rowBox = lineOf(letters.length ? letters : l).box;
      const h = heightOf(rowBox);
      const wh = heightOf(word.box);
      const similar = punctuation || !letters.length || Math.max(wh, h) / Math.min(wh, h) < 1.8;
      const gap = word.box.x0 - last.box.x1;
      const centre = (word.box.y0 + word.box.y1) / 2;
      const onRow =
        punctuation || !letters.length
          ? centre > Math.min(rowBox.y0, word.box.y0) &&
            centre < Math.max(rowBox.y1, word.box.y1) &&
            verticalOverlap(rowBox, word.box) > 0.3
          : verticalOverlap(rowBox, word.box) > 0.5;
      // One space between words is about two characters' width apart; a column is further.
      const cw = charWidth([...letters, word]);
      return similar && onRow && gap < Math.max(1.6 * Math.max(h, letters.length ? 0 : wh), 2.3 * cw) && gap > -0.5 * h;
    });
    if (line) line.push(word);
    else lines.push([word]);
  }
  return lines.map(lineOf).sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
}
