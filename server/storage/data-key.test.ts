import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateDataKey } from './data-key.js';

describe('data key', () => {
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
});
