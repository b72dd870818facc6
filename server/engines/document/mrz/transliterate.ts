import { distance } from 'fastest-levenshtein';

/**
 * Names in the MRZ use only A-Z and the filler `<` (ICAO 9303 part 3 §6). For Spanish names:
 * accents are dropped (JOSÉ -> JOSE) and Ñ is written N (MUÑOZ -> MUNOZ). ICAO's table also
 * allows NXX for Ñ and UE/UXX for Ü; Argentine cards are taken to use N and U (unverified: no
 * real card back was available), and `mrzNamesEquivalent` accepts the other forms.
 * Spaces and hyphens become `<`; apostrophes and other punctuation are removed (O'NEIL -> ONEIL).
 */
export function transliterateForMrz(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '') // combining marks: Ñ = N + U+0303, É = E + U+0301
    .toUpperCase()
    .replace(/Æ/g, 'AE')
    .replace(/Ø/g, 'OE')
    .replace(/ß/g, 'SS')
    .replace(/['’`´.]/g, '')
    .replace(/[\s-]+/g, '<')
    .replace(/[^A-Z<]/g, '')
    .replace(/^<+|<+$/g, '');
}

/**
 * The TD1 name line (line 3): SURNAME<<GIVEN<NAMES, filler to `width`. ICAO prefers smarter
 * truncation of over-long names; plain cutting at the width is what this renders, and a reader
 * can only tell truncation by the line ending in a letter.
 */
export function mrzNameLine(surname: string, givenNames: string, width = 30): string {
  const given = transliterateForMrz(givenNames);
  const line = transliterateForMrz(surname) + (given ? '<<' + given : '');
  return (line + '<'.repeat(width)).slice(0, width);
}

/** Folds the ICAO alternatives (NXX/UXX, UE) so names written either way compare equal. */
function foldMrzName(mrz: string): string {
  return mrz.replace(/NXX/g, 'N').replace(/UXX/g, 'U').replace(/UE/g, 'U').replace(/<+$/g, '');
}

/**
 * Whether a name line read from an MRZ corresponds to a surname and given names from another source
 * (PDF417, printed text), allowing for transliteration and truncation of the MRZ line.
 */
export function mrzNamesEquivalent(mrzNameLine3: string, surname: string, givenNames: string): boolean {
  const expected = foldMrzName(mrzNameLine(surname, givenNames, 200));
  const read = foldMrzName(mrzNameLine3);
  // The name line has no check digit: one character misread, dropped or added (a border mark
  // read as a letter) is OCR's slip, not another name; a different name differs by more.
  if (distance(read, expected) <= 1) return true;
  // A full line ending in a letter was truncated: what was read must be a prefix of the full name.
  const truncated = mrzNameLine3.length >= 30 && !mrzNameLine3.endsWith('<');
  return truncated && [-1, 0, 1].some((d) => distance(read, expected.slice(0, read.length + d)) <= 1);
}
