import { describe, expect, it } from 'vitest';
import { checkDigit, isCheckDigitValid, mrzCharValue } from './check-digit.js';

describe('ICAO 9303 check digits', () => {
  it('values characters as 0-9, A=10..Z=35 and < = 0', () => {
    expect(mrzCharValue('0')).toBe(0);
    expect(mrzCharValue('9')).toBe(9);
    expect(mrzCharValue('A')).toBe(10);
    expect(mrzCharValue('Z')).toBe(35);
    expect(mrzCharValue('<')).toBe(0);
    expect(mrzCharValue('a')).toBeNull();
    expect(mrzCharValue('Ñ')).toBeNull();
  });

  it('matches the ICAO worked example (TD1 ERIKSSON)', () => {
    expect(checkDigit('D23145890')).toBe(7); // document number
    expect(checkDigit('740812')).toBe(2); // birth
    expect(checkDigit('120415')).toBe(9); // expiry
    const l1 = 'I<UTOD231458907<<<<<<<<<<<<<<<';
    const l2 = '7408122F1204159UTO<<<<<<<<<<<6';
    const composite = l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29);
    expect(checkDigit(composite)).toBe(6);
  });

  it('uses the 7-3-1 weights (Doc 9303 part 3 example 520727 -> 3)', () => {
    expect(checkDigit('520727')).toBe(3);
    expect(checkDigit('AB2134<<<')).toBe(5);
  });

  it('rejects characters outside the MRZ alphabet instead of guessing', () => {
    expect(checkDigit('12a4')).toBeNull();
    expect(isCheckDigitValid('12a4', '0')).toBe(false);
  });

  it('accepts < as the check digit only of an empty field', () => {
    expect(isCheckDigitValid('<<<<<<', '<')).toBe(true);
    expect(isCheckDigitValid('<<<<<<', '0')).toBe(true);
    expect(isCheckDigitValid('000000', '<')).toBe(false);
  });
});
