import { describe, expect, it } from 'vitest';
import { DICTIONARIES, translator, type MessageKey } from '../renderer/src/i18n.js';

// The type system makes English carry every Spanish key; this checks what types cannot.
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('console dictionary', () => {
  it('gives every message in both languages, non-empty, with the same placeholders', () => {
    const es = DICTIONARIES['es-AR'];
    const en = DICTIONARIES.en;
    expect(Object.keys(en).sort()).toEqual(Object.keys(es).sort());
    for (const key of Object.keys(es) as MessageKey[]) {
      expect(en[key].trim(), key).not.toBe('');
      expect(placeholders(en[key]), key).toEqual(placeholders(es[key]));
    }
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translator('es-AR')('gallery.total', { n: 3 })).toBe('3 personas enroladas');
    expect(translator('en')('identify.ok', { id: '30111222' })).toBe('Identified: 30111222');
    expect(translator('en')('identify.ok')).toBe('Identified: {id}');
  });
});
