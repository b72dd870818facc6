import { describe, expect, it } from 'vitest';
import { pick } from './dni-result.js';

describe('choosing a field among sources', () => {
  it('takes the first valid source and reports agreement', () => {
    expect(
      pick([
        { value: '30111222', valid: true, source: 'MRZ' },
        { value: '30111222', valid: true, source: 'PDF417' },
      ]),
    ).toEqual({
      value: '30111222',
      detail: { source: 'MRZ', valid: true, agreement: 'AGREE' },
    });
  });

  it('never overrules a disagreement: the field becomes invalid and empty', () => {
    const r = pick([
      { value: '30111222', valid: true, source: 'MRZ' },
      { value: '30111223', valid: true, source: 'PDF417' },
    ]);
    expect(r.value).toBeNull();
    expect(r.detail).toMatchObject({ valid: false, agreement: 'MISMATCH' });
  });

  it('shows what OCR alone read, but never as valid', () => {
    const r = pick([
      { value: null, valid: false, source: 'PDF417' },
      { value: 'F', valid: false, plausible: true, source: 'OCR' },
    ]);
    expect(r).toEqual({
      value: 'F',
      detail: { source: 'OCR', valid: false, agreement: 'SINGLE_SOURCE', motivo: 'solo leído por OCR: no verificado' },
    });
  });

  it('ignores an invalid source when a valid one exists', () => {
    const r = pick([
      { value: '3011122X', valid: false, source: 'MRZ' },
      { value: '30111222', valid: true, source: 'PDF417' },
    ]);
    expect(r).toMatchObject({ value: '30111222', detail: { source: 'PDF417', valid: true, agreement: 'SINGLE_SOURCE' } });
  });
});
