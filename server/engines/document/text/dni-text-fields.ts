// Own code: no library assigns an ID card's printed lines to fields by their labels and patterns.
import { distance } from 'fastest-levenshtein';
import {
  foldText,
  heightOf,
  lineOf,
  medianHeight,
  verticalOverlap,
  type TextBox,
  type TextLine,
  type TextWord,
} from './text-lines.js';
import { type DniTextField, fitsField } from './dni-text-values.js';

export { foldText };

export type { DniTextField };

export interface ReadField {
  /** The value as printed (OCR), words joined by one space. */
  text: string;
  /** The lowest word confidence of the value, 0-100. */
  confidence: number;
  box: TextBox;
  /** Found beside or under its label; false when found by its pattern alone. */
  byLabel: boolean;
}

export type DniTextFields = Partial<Record<DniTextField, ReadField>>;

/** A label read without a value: where the value should be, to read again more closely. */
export interface UnreadValue {
  field: DniTextField;
  region: TextBox;
}

/**
 * The labels of the 2012+ card (bilingual) and of the 2009 card, as normalised tokens. The longest
 * phrase wins, so "LUGAR DE NACIMIENTO" is the place of birth, not the date.
 */
const LABELS: Record<DniTextField, string[][]> = {
  surname: [['APELLIDO'], ['APELLIDOS'], ['SURNAME']],
  givenNames: [['NOMBRE'], ['NOMBRES'], ['NAME'], ['GIVEN', 'NAMES']],
  sex: [['SEXO'], ['SEX']],
  nationality: [['NACIONALIDAD'], ['NATIONALITY']],
  sequence: [['EJEMPLAR']],
  dateOfBirth: [['FECHA', 'DE', 'NACIMIENTO'], ['DATE', 'OF', 'BIRTH'], ['NACIMIENTO']],
  issuingDate: [['FECHA', 'DE', 'EMISION'], ['DATE', 'OF', 'ISSUE'], ['EMISION']],
  expirationDate: [['FECHA', 'DE', 'VENCIMIENTO'], ['DATE', 'OF', 'EXPIRY'], ['VENCIMIENTO'], ['EXPIRY']],
  documentNumber: [['DOCUMENTO'], ['DOCUMENT'], ['DNI'], ['D', 'N', 'I']],
  order: [['TRAMITE'], ['TRAMITE', 'N']],
  address: [['DOMICILIO']],
  // "LUGAR" alone too: on a DNI it begins no other label, and "NACIMIENTO" in small print is often lost.
  placeOfBirth: [['LUGAR', 'DE', 'NACIMIENTO'], ['LUGAR', 'DE'], ['LUGAR'], ['PLACE', 'OF', 'BIRTH']],
  cuil: [['CUIL'], ['C', 'U', 'I', 'L']],
};

/** Values that may run over a second line (a long address, three given names). */
const WRAPS: ReadonlySet<DniTextField> = new Set(['address', 'givenNames', 'surname', 'placeOfBirth']);

const tokenOf = (word: string): string => foldText(word).replace(/[^A-Z0-9]/g, '');

/** A label token read with one slip at most, and only in words long enough not to be a name. */
const tokenMatches = (read: string, label: string): boolean =>
  read === label ||
  (label.length >= 6 && Math.abs(read.length - label.length) <= 1 && distance(read, label) <= 1) ||
  // "rn" read for "m", "cl" for "d": two slips in a long word.
  (label.length >= 7 && read.length >= 7 && distance(read, label) <= 2);

const LABEL_TOKENS = [...new Set(Object.values(LABELS).flat(2))].filter((t) => t.length >= 5);

/** A word that is most likely part of a label read too poorly to match (never a value). */
const labelResidue = (word: TextWord): boolean => {
  const t = tokenOf(word.text);
  return t.length >= 5 && LABEL_TOKENS.some((l) => distance(t, l) <= (l.length >= 7 ? 2 : 1));
};

type Segment =
  | { kind: 'label'; field: DniTextField; words: TextWord[]; box: TextBox }
  | { kind: 'text'; words: TextWord[]; box: TextBox };

/** Where a label phrase of `field` starts at word i: how many words it spans, or 0. */
function phraseAt(tokens: readonly string[], i: number): { field: DniTextField; length: number } | null {
  let best: { field: DniTextField; length: number; tokens: number } | null = null;
  for (const [field, phrases] of Object.entries(LABELS) as [DniTextField, string[][]][]) {
    for (const phrase of phrases) {
      let k = i;
      let matched = 0;
      while (matched < phrase.length) {
        while (k < tokens.length && tokens[k] === '') k++; // separators: "/", ":", "-"
        if (k >= tokens.length) break;
        // One read word may hold two of the phrase's words run together ("ofissue").
        const single = tokenMatches(tokens[k]!, phrase[matched]!);
        const joined =
          !single && matched + 1 < phrase.length && tokenMatches(tokens[k]!, phrase[matched]! + phrase[matched + 1]!);
        if (!single && !joined) break;
        matched += joined ? 2 : 1;
        k++;
      }
      if (matched === phrase.length && (!best || phrase.length > best.tokens))
        best = { field, length: k - i, tokens: phrase.length };
    }
  }
  return best && { field: best.field, length: best.length };
}

/** A line cut into its label phrases (with their other-language twin and a trailing "N°") and the text between. */
function segmentsOf(line: TextLine): Segment[] {
  const tokens = line.words.map((w) => tokenOf(w.text));
  const out: Segment[] = [];
  let text: TextWord[] = [];
  const flush = () => {
    if (text.length) out.push({ kind: 'text', words: text, box: lineOf(text).box });
    text = [];
  };
  for (let i = 0; i < tokens.length; ) {
    const hit = tokens[i] === '' ? null : phraseAt(tokens, i);
    if (!hit) {
      text.push(line.words[i]!);
      i++;
      continue;
    }
    flush();
    let end = i + hit.length;
    // "Apellido / Surname", "Trámite N°": the rest of the same label.
    for (;;) {
      let k = end;
      while (k < tokens.length && tokens[k] === '') k++;
      const twin = k < tokens.length ? phraseAt(tokens, k) : null;
      if (twin && twin.field === hit.field) end = k + twin.length;
      else if (hit.field === 'order' && k < tokens.length && /^N[O0]?$/.test(tokens[k]!)) end = k + 1;
      else break;
    }
    while (end < tokens.length && tokens[end] === '' && !/\w/.test(line.words[end]!.text)) end++; // ":" after it
    const words = line.words.slice(i, end);
    out.push({ kind: 'label', field: hit.field, words, box: lineOf(words).box });
    i = end;
  }
  flush();
  return out;
}

const centreX = (b: TextBox): number => (b.x0 + b.x1) / 2;

/** A dash, comma or other mark: no letter or digit, so no height of its own to compare. */
const isMark = (w: TextWord): boolean => !/[\p{L}\p{N}]/u.test(w.text);

const textOf = (words: readonly TextWord[]): string =>
  lineOf(words)
    .text.replace(/^[\s:.\-–—]+/, '')
    .trim();

/**
 * The longest run of the words that reads as the field's value: a label's leftovers before it
 * ("Date ofissue 24 SEP/ SEP 2017"), or another value run on after it ("NEUQUÉN 23-12655671-3").
 */
function fittingRun(field: DniTextField, words: readonly TextWord[]): TextWord[] | null {
  for (let length = words.length - 1; length >= 1; length--)
    for (let start = 0; start + length <= words.length; start++) {
      const run = words.slice(start, start + length);
      if (fitsField(field, textOf(run))) return run;
    }
  return null;
}

/**
 * A doubtful single character whose box runs into the next word's on its row: the edge of that
 * word's first letter read twice ("1 BELGRANO"), not a word of its own ("9 DE JULIO" leaves a space).
 */
function ghostGlyph(word: TextWord, words: readonly TextWord[]): boolean {
  if ([...word.text].length !== 1 || word.confidence >= 70) return false;
  return words.some(
    (o) =>
      o !== word &&
      /[\p{L}\p{N}]{2}/u.test(o.text) &&
      verticalOverlap(o.box, word.box) > 0.5 &&
      o.box.x0 > word.box.x0 &&
      o.box.x0 < word.box.x1,
  );
}

/** The words of the first row of `words` (the topmost word's row). */
function firstRow(words: readonly TextWord[]): TextWord[] {
  if (!words.length) return [];
  const top = words.reduce((a, b) => (b.box.y0 < a.box.y0 ? b : a));
  return words.filter((w) => verticalOverlap(w.box, top.box) > 0.5);
}

/**
 * Words OCR ran together, apart again: "Apellido/Surname" (the slash between, a date's slashes
 * stay), "NACIMIENTO:=06" or "DOMICILIO:AV." (a label's colon, then its value).
 */
function splitGlued(line: TextLine): TextLine {
  const words = line.words.flatMap((w) => {
    const per = (w.box.x1 - w.box.x0) / w.text.length;
    const piece = (text: string, from: number) => ({
      ...w,
      text,
      box: { ...w.box, x0: w.box.x0 + from * per, x1: w.box.x0 + (from + text.length) * per },
    });
    const bilingual = /^(\p{L}{3,}[.]?)\/(\p{L}{3,}[.:]?)$/u.exec(w.text);
    if (bilingual) {
      const [, a, b] = bilingual as unknown as [string, string, string];
      return [piece(a, 0), piece('/', a.length), piece(b, a.length + 1)];
    }
    const labelled = /^(\p{L}{4,}:)[=:]*(\S+)$/u.exec(w.text);
    if (labelled) {
      const [, a, b] = labelled as unknown as [string, string, string];
      return [piece(a, 0), piece(b, w.text.length - b.length)];
    }
    return [w];
  });
  return words.length === line.words.length ? line : lineOf(words);
}

/**
 * The dashes and commas on a row of words: their boxes sit mid-line, lower than a word's top may
 * be and shorter than a word, so the tests that find a row's words pass them by.
 */
function rowMarks(row: readonly TextWord[], free: ReadonlySet<TextWord>, h: number): TextWord[] {
  return [...free].filter(
    (w) =>
      !row.includes(w) &&
      isMark(w) &&
      row.some((n) => verticalOverlap(n.box, w.box) > 0.5) &&
      w.box.x0 > Math.min(...row.map((n) => n.box.x0)) - h &&
      w.box.x1 < Math.max(...row.map((n) => n.box.x1)) + 2 * h,
  );
}

/** A row of words with its marks, left to right. */
function withRowMarks(row: TextWord[], free: ReadonlySet<TextWord>): TextWord[] {
  if (!row.length) return row;
  return [...row, ...rowMarks(row, free, medianHeight(row.map((w) => w.box)))].sort((a, b) => a.box.x0 - b.box.x0);
}

/** The card's printed fields from its lines: each value beside or under its label, wrapped lines joined. */
export function dniFieldsFromText(lines: readonly TextLine[]): DniTextFields {
  return readDniFields(lines).fields;
}

/** The fields, and the labels whose value was not found, with the region it should be in. */
export function readDniFields(
  lines: readonly TextLine[],
  side: 'front' | 'back' | null = null,
): { fields: DniTextFields; unread: UnreadValue[] } {
  const segments = lines.map(splitGlued).flatMap(segmentsOf);
  const labels = segments.filter((s): s is Extract<Segment, { kind: 'label' }> => s.kind === 'label');
  const text = segments.filter((s) => s.kind === 'text').flatMap((s) => s.words);
  const residue = text.filter(labelResidue);
  const free = new Set(text.filter((w) => !labelResidue(w)));
  const fields: DniTextFields = {};
  const unread: UnreadValue[] = [];

  const take = (field: DniTextField, taken: TextWord[], byLabel: boolean) => {
    for (const w of taken) free.delete(w);
    const words = taken.filter((w) => !ghostGlyph(w, taken));
    if (!words.length) return;
    const line = lineOf(words);
    // Row by row, each left to right: a wrapped value reads in order.
    const rows: TextWord[][] = [];
    for (const w of words) {
      const row = rows.find((r) => verticalOverlap(r[0]!.box, w.box) > 0.5);
      if (row) row.push(w);
      else rows.push([w]);
    }
    const ordered = rows
      .sort((a, b) => a[0]!.box.y0 - b[0]!.box.y0)
      .map((r) =>
        r
          .sort((a, b) => a.box.x0 - b.box.x0)
          .map((w) => w.text)
          .join(' '),
      );
    const text = ordered
      .join(' ')
      .replace(/^[\s:.\-–—]+/, '')
      // A dash left at the end is the separator before a line that was not read.
      .replace(/[\s\-–—]+$/, '')
      .trim();
    if (text) fields[field] = { text, confidence: line.confidence, box: line.box, byLabel };
  };

  // Top to bottom, left to right: a value under one label is not another's.
  for (const label of [...labels].sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0)) {
    if (fields[label.field]) continue;
    const h = heightOf(label.box);
    // The next label to the right on the same row closes this label's column.
    const columnEnd = Math.min(
      ...labels
        .filter((o) => o !== label && verticalOverlap(o.box, label.box) > 0.5 && o.box.x0 > label.box.x1)
        .map((o) => o.box.x0),
      Infinity,
    );
    // Beside: the free words right after it on its row, before the next label.
    // Label leftovers ("BIRTH:") stay in the row for the gaps between words, never in a value.
    const right = [...free, ...residue]
      .filter((w) => centreX(w.box) > label.box.x1 - h * 0.5 && w.box.x0 < columnEnd)
      .sort((a, b) => a.box.x0 - b.box.x0);
    const firstBeside = right.find((w) => verticalOverlap(w.box, label.box) > 0.4);
    /** Under: the first row of free words below the label, in its column, not beside a label of their own. */
    const below = () => withRowMarks(wordsUnder(), free);
    const wordsUnder = () =>
      firstRow(
        [...free].filter(
          (w) =>
            w.box.y0 > label.box.y1 - h * 0.4 &&
            w.box.y0 - label.box.y1 < Math.max(3 * h, 2 * heightOf(w.box)) &&
            centreX(w.box) >= label.box.x0 - 2 * h &&
            w.box.x0 < columnEnd - h &&
            w.box.x0 > label.box.x0 - 3 * h &&
            !labels.some((o) => o !== label && verticalOverlap(o.box, w.box) > 0.4 && o.box.x1 <= w.box.x0 + h) &&
            // Not under another label between them: that row is the other label's.
            !labels.some(
              (o) =>
                o !== label &&
                o.box.y0 > label.box.y0 + h * 0.5 &&
                o.box.y1 <= w.box.y0 + h * 0.3 &&
                o.box.x0 < w.box.x1 &&
                o.box.x1 > w.box.x0,
            ),
        ),
      ).sort((a, b) => a.box.x0 - b.box.x0);
    let value: TextWord[] = [];
    if (firstBeside && firstBeside.box.x0 - label.box.x1 < 12 * h) {
      // Only the run of words close to one another from the first: a far word is another column's.
      // Each word on the row of the last letters before it, not the label's: a line slightly
      // skewed drifts off a small label's height along a long value.
      // A speck read as letters, far smaller than the value's, is neither part of it nor its row.
      const usual = medianHeight(right.filter((x) => !isMark(x)).map((x) => x.box));
      const speck = (x: TextWord) => !isMark(x) && heightOf(x.box) < 0.5 * usual;
      value = [firstBeside];
      for (const w of right.filter((x) => x.box.x0 > firstBeside.box.x0 && !speck(x))) {
        const last = value[value.length - 1]!;
        const row = [...value].reverse().find((x) => !isMark(x)) ?? last;
        if (verticalOverlap(w.box, row.box) <= 0.4) continue;
        if (w.box.x0 - last.box.x1 < 2.5 * Math.max(heightOf(w.box), heightOf(last.box))) value.push(w);
        else break;
      }
      value = value.filter((w) => free.has(w));
      // Only the label's own leftovers beside it: its value is under it.
      if (!value.length) value = below();
    } else value = below();
    if (value.length && !fitsField(label.field, textOf(value))) {
      // A poorly read label leaves words before its value ("Date ofissue 24 SEP/ SEP 2017"): the
      // run of words that fits the field; else what is under the label (a heading such as
      // "DOCUMENTO NACIONAL DE IDENTIDAD" has no value beside it); else nothing from this label.
      const fit = fittingRun(label.field, value);
      const under = fit ? [] : below();
      value = fit ?? (under.length && fitsField(label.field, textOf(under)) ? under : []);
    }
    if (!value.length) {
      unread.push({
        field: label.field,
        region: {
          x0: label.box.x0 - h,
          y0: label.box.y0 - h * 0.5,
          x1: Math.min(columnEnd, label.box.x1 + 10 * h),
          y1: label.box.y1 + 3.5 * h,
        },
      });
      continue;
    }
    // A long value runs on to a third line at most (an address with street, locality and province).
    for (let wrap = 0; WRAPS.has(label.field) && wrap < 2; wrap++) {
      // A next line right under the value's last, starting about where it or its label starts.
      const last = Math.max(...value.map((w) => w.box.y0));
      const row = value.filter((w) => verticalOverlap(w.box, value.find((v) => v.box.y0 === last)!.box) > 0.5);
      const first = lineOf(row);
      // The row's usual height: one word's box stretched over an accent or a neighbour's strokes is not its size.
      const vh = medianHeight(row.filter((w) => !isMark(w)).map((w) => w.box)) || heightOf(first.box);
      const next = firstRow(
        [...free].filter(
          (w) =>
            !value.includes(w) &&
            w.box.y0 > first.box.y1 - vh * 0.3 &&
            w.box.y0 - first.box.y1 < vh * 0.9 &&
            w.box.x0 < columnEnd &&
            w.box.x0 > Math.min(first.box.x0, label.box.x0) - 2 * vh &&
            (isMark(w) || (heightOf(w.box) > vh * 0.6 && heightOf(w.box) < vh * 1.6)),
        ),
      );
      next.push(...rowMarks(next, free, vh).filter((w) => !value.includes(w)));
      const startsAligned =
        next.length > 0 &&
        Math.min(...next.map((w) => w.box.x0)) < Math.max(first.box.x0, label.box.x0) + 2 * vh &&
        !labels.some((l) => next.some((w) => verticalOverlap(l.box, w.box) > 0.5)) &&
        // Nor a label between the two lines: the lower one is that label's value.
        !labels.some(
          (l) =>
            l !== label && l.box.y0 >= first.box.y1 - vh * 0.3 && l.box.y1 <= Math.min(...next.map((w) => w.box.y0)) + vh * 0.3,
        );
      const wrapped = [...value, ...next.sort((a, b) => a.box.x0 - b.box.x0)];
      if (!startsAligned || !fitsField(label.field, textOf(wrapped))) break;
      value = wrapped;
    }
    take(label.field, value, true);
  }

  // By pattern alone, for the fields whose label was not read.
  const freeLines = groupFree([...free]);
  const byPattern = (field: DniTextField, pattern: RegExp) => {
    if (fields[field]) return;
    const hits = freeLines.filter((l) => pattern.test(l.text));
    if (hits.length === 1) take(field, hits[0]!.words, false);
  };
  byPattern('documentNumber', /^\d{1,2}[.,]\d{3}[.,]\d{3}$/);
  byPattern('order', /^\d{11}$/);
  byPattern('cuil', /^\d{2}-\d{7,8}-\d$/);
  if (side === 'back') backByOrder(freeLines, fields, take);
  return { fields, unread: unread.filter((u) => !fields[u.field]) };
}

/** What a card prints besides its fields: headings, the signature's caption. */
const PRINTED_FURNITURE = /REPUBLICA|ARGENTINA - MERCOSUR|REGISTRO NACIONAL|MINISTERIO|FIRMA|IDENTIFICAD|DOCUMENTO NACIONAL/;

/**
 * A back whose labels were not read (small print under blur): its address is the first line of
 * words and a number, and the next line of words alone is the place of birth, as every DNI prints them.
 */
function backByOrder(
  lines: readonly TextLine[],
  fields: DniTextFields,
  take: (field: DniTextField, words: TextWord[], byLabel: boolean) => void,
) {
  const rows = [...lines]
    .sort((a, b) => a.box.y0 - b.box.y0)
    .filter((l) => l.confidence >= 50 && !PRINTED_FURNITURE.test(foldText(l.text)));
  let after = -Infinity;
  if (!fields.address) {
    const at = rows.findIndex(
      (l) => /\p{L}{3}/u.test(l.text) && /\d/.test(l.text) && l.text.length >= 8 && !/\d{2}-\d{7,8}-\d/.test(l.text),
    );
    if (at >= 0) {
      // A street name too long for its number's line starts on the line right above.
      const above = rows[at - 1];
      const vh0 = heightOf(rows[at]!.box);
      const startsAbove =
        above !== undefined &&
        rows[at]!.box.y0 - above.box.y1 < vh0 * 0.9 &&
        Math.abs(above.box.x0 - rows[at]!.box.x0) < 2 * vh0 &&
        /\p{L}{3}/u.test(above.text) &&
        !/\d/.test(above.text);
      // Its second and third lines: right under, starting where it starts.
      const taken = startsAbove ? [above, rows[at]!] : [rows[at]!];
      for (let i = at + 1; i < rows.length && taken.length < 3; i++) {
        const [last, next] = [taken[taken.length - 1]!, rows[i]!];
        const vh = heightOf(last.box);
        // A word beside the line (a label's leftovers) is not the line under it.
        if (verticalOverlap(last.box, next.box) > 0.5 && Math.abs(next.box.x0 - taken[0]!.box.x0) >= 2 * vh) continue;
        const wraps =
          next.box.y0 - last.box.y1 < vh * 0.9 &&
          Math.abs(next.box.x0 - taken[0]!.box.x0) < 2 * vh &&
          /\p{L}{3}/u.test(next.text) &&
          !/\d{2}-\d{7,8}-\d/.test(next.text);
        if (!wraps) break;
        taken.push(next);
      }
      take(
        'address',
        taken.flatMap((l) => l.words),
        false,
      );
      after = taken[taken.length - 1]!.box.y1;
    }
  } else after = fields.address.box.y1;
  if (!fields.placeOfBirth) {
    const place = rows.find((l) => l.box.y0 >= after - 2 && /^[\p{L} .,'-]{3,}$/u.test(l.text) && /\p{L}{3}/u.test(l.text));
    if (place) take('placeOfBirth', place.words, false);
  }
}

/** Rows of free words of one size: a small label's leftovers are not part of the value beside them. */
function groupFree(words: TextWord[]): TextLine[] {
  const rows: TextWord[][] = [];
  // A row is sized by its last word that is not a mark.
  const similar = (a: TextWord, b: TextWord) =>
    isMark(b) || (heightOf(b.box) / heightOf(a.box) < 1.6 && heightOf(a.box) / heightOf(b.box) < 1.6);
  for (const w of words.sort((a, b) => a.box.x0 - b.box.x0)) {
    // Of the rows it could continue, the one that ends nearest before it.
    let best: { row: TextWord[]; gap: number } | null = null;
    for (const row of rows) {
      const last = row[row.length - 1]!;
      const sized = [...row].reverse().find((x) => !isMark(x)) ?? last;
      if (verticalOverlap(last.box, w.box) <= 0.5 || !similar(sized, w)) continue;
      const gap = Math.abs(w.box.x0 - last.box.x1);
      if (!best || gap < best.gap) best = { row, gap };
    }
    if (best) best.row.push(w);
    else rows.push([w]);
  }
  return rows.map(lineOf);
}
