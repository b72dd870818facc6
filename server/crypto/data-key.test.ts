import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateDataKey } from './data-key.js';
import { open, seal } from './sealed.js';

describe('data key and sealing', () => {
  it('creates an owner-only key file once and reuses it; the environment wins', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-key-'));
    const key = loadOrCreateDataKey(dir, {});
    expect(key).toHaveLength(32);
    expect(statSync(path.join(dir, 'keys', 'data.key')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateDataKey(dir, {}).equals(key)).toBe(true);
    const injected = Buffer.alloc(32, 7);
    expect(loadOrCreateDataKey(dir, { ENROLLA_DATA_KEY: injected.toString('base64') }).equals(injected)).toBe(true);
    expect(() => loadOrCreateDataKey(dir, { ENROLLA_DATA_KEY: 'corta' })).toThrow(/32 bytes/);
    chmodSync(path.join(dir, 'keys', 'data.key'), 0o644);
    expect(() => loadOrCreateDataKey(dir, {})).toThrow(/legible por otros usuarios/);
  });

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
