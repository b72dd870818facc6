/**
 * Bytes -> text for the DNI PDF417 payload, and repair of the ways Ñ gets mangled on the way.
 * The symbol carries no ECI, so the charset is a guess: UTF-8 when the bytes are valid UTF-8
 * (a Latin-1 payload with Ñ/É is almost never valid UTF-8), otherwise Latin-1.
 */

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function decodePayloadBytes(bytes: Uint8Array): { text: string; charset: 'utf-8' | 'latin1' } {
  try {
    return { text: UTF8.decode(bytes).replace(/^\uFEFF/, ''), charset: 'utf-8' };
  } catch {
    // Buffer's latin1 is true ISO-8859-1; WHATWG TextDecoder('iso-8859-1') would be windows-1252.
    return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'), charset: 'latin1' };
  }
}

// windows-1252 characters in 0x80-0x9F, for mojibake made by a cp1252 (not Latin-1) decoder.
// prettier-ignore
const CP1252: Record<string, number> = {
  '€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a,
  '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
  '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
};

/**
 * Undoes UTF-8 read as Latin-1/cp1252 (`MUÃ\x91OZ`, `MUÃ‘OZ` -> `MUÑOZ`): turns the characters back
 * into bytes and re-decodes them, only when that yields valid UTF-8 with at least one multi-byte
 * character, so genuine Latin-1 text such as `Ã` alone is left alone.
 */
export function repairMojibake(text: string): { text: string; repaired: boolean } {
  if (!/[ÃÂ]/.test(text)) return { text, repaired: false };
  const bytes: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    const b = code <= 0xff ? code : CP1252[ch];
    if (b === undefined) return { text, repaired: false };
    bytes.push(b);
  }
  try {
    const fixed = UTF8.decode(Uint8Array.from(bytes));
    return fixed !== text && [...fixed].some((c) => c.charCodeAt(0) > 0x7f)
      ? { text: fixed, repaired: true }
      : { text, repaired: false };
  } catch {
    return { text, repaired: false };
  }
}

/**
 * `NXX` -> `Ñ` and `UXX` -> `Ü`: the ICAO transliteration some readers/encoders produce when the
 * payload goes through plain ASCII. Applied to name fields only (no Spanish name contains NXX).
 */
export function repairNxx(name: string): { text: string; repaired: boolean } {
  const fixed = name.replace(/NXX/g, 'Ñ').replace(/UXX/g, 'Ü');
  return { text: fixed, repaired: fixed !== name };
}
