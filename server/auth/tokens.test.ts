import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStation } from '../storage/index.js';
import { FailedAuthThrottle } from './throttle.js';
import { TokenService } from './tokens.js';

describe('API tokens', () => {
  it('authenticates a fresh token, refuses malformed, unknown and revoked ones', () => {
    const tokens = new TokenService(openSqliteStation(mkdtempSync(path.join(tmpdir(), 'enrolla-tok-')), randomBytes(32)).records);
    const { token, info } = tokens.create('recepción', ['verify']);
    expect(token).toMatch(/^enr_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    for (let i = 0; i < 200; i++) expect(tokens.create(`t${i}`, ['verify']).info.id).toMatch(/^[A-Za-z0-9]{12}$/);
    const ok = tokens.authenticate(`Bearer ${token}`);
    expect(ok).toMatchObject({ ok: true, token: { name: 'recepción', scopes: ['verify'] } });
    expect(tokens.authenticate(undefined)).toEqual({ ok: false, failure: 'missing' });
    expect(tokens.authenticate(token)).toEqual({ ok: false, failure: 'malformed' });
    expect(tokens.authenticate('Bearer abc')).toEqual({ ok: false, failure: 'malformed' });
    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(tokens.authenticate(`Bearer ${forged}`)).toEqual({ ok: false, failure: 'unknown' });
    expect(tokens.revoke(info.id)).toBe(true);
    expect(tokens.authenticate(`Bearer ${token}`)).toEqual({ ok: false, failure: 'revoked' });
  });

  it('never stores the token itself', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-tok-'));
    const store = openSqliteStation(dir, randomBytes(32));
    const { token } = new TokenService(store.records).create('x', ['admin']);
    store.close();
    const secret = token.slice(-43);
    const files = ['enrolla.db', 'enrolla.db-wal'].map((f) => {
      try {
        return readFileSync(path.join(dir, f)).toString('latin1');
      } catch {
        return '';
      }
    });
    expect(files.join('')).not.toContain(secret);
  });
});

describe('failed-authentication throttle', () => {
  it('blocks an address after the limit until its window ends, others unaffected', () => {
    let now = 0;
    const throttle = new FailedAuthThrottle(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfter('a')).toBe(0);
      throttle.recordFailure('a');
    }
    expect(throttle.retryAfter('a')).toBe(60);
    expect(throttle.retryAfter('b')).toBe(0);
    now = 59_500;
    expect(throttle.retryAfter('a')).toBe(1);
    now = 60_000;
    expect(throttle.retryAfter('a')).toBe(0);
  });
});
