import { describe, expect, it } from 'vitest';
import { open, seal } from './sealed.js';

describe('sealing', () => {
  it('seals with a fresh nonce, and refuses another key, another row or a flipped bit', () => {
    const key = Buffer.alloc(32, 1);
    const a = seal(key, Buffer.from('plantilla'), 'row/1');
    const b = seal(key, Buffer.from('plantilla'), 'row/1');
    expect(a.equals(b)).toBe(false);
    expect(open(key, a, 'row/1').toString()).toBe('plantilla');
    expect(() => open(Buffer.alloc(32, 2), a, 'row/1')).toThrow(/no se pudo descifrar/);
    expect(() => open(key, a, 'row/2')).toThrow(/no se pudo descifrar/);
    a[20]! ^= 1;
    expect(() => open(key, a, 'row/1')).toThrow(/no se pudo descifrar/);
  });
});
