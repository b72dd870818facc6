/**
 * ICAO 9303 part 3 §4.9 check digits: each character's value (digits as themselves, A=10 … Z=35,
 * filler `<` = 0) times the repeating weights 7, 3, 1, summed modulo 10.
 */
const WEIGHTS = [7, 3, 1] as const;

/** Value of one MRZ character, or null for a character the MRZ alphabet does not have. */
export function mrzCharValue(c: string): number | null {
  if (c === '<') return 0;
  const code = c.charCodeAt(0);
  if (c.length === 1 && code >= 48 && code <= 57) return code - 48;
  if (c.length === 1 && code >= 65 && code <= 90) return code - 55;
  return null;
}

/** The check digit of `field` (0-9), or null if it holds a character outside `0-9 A-Z <`. */
export function checkDigit(field: string): number | null {
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const v = mrzCharValue(field.charAt(i));
    if (v === null) return null;
    sum += v * (WEIGHTS[i % 3] ?? 1);
  }
  return sum % 10;
}

export function checkDigitChar(field: string): string {
  const d = checkDigit(field);
  if (d === null) throw new Error(`carácter fuera del alfabeto MRZ en ${JSON.stringify(field)}`);
  return String(d);
}

/**
 * Whether `digit` is the check digit of `field`. Some states write `<` for the check digit of an
 * empty (all-filler) field; ICAO allows it, and it equals 0 arithmetically, so both are accepted.
 */
export function isCheckDigitValid(field: string, digit: string): boolean {
  const d = checkDigit(field);
  if (d === null) return false;
  if (digit === '<') return d === 0 && /^<*$/.test(field);
  return digit === String(d);
}
