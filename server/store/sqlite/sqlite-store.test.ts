import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { DATABASE_FILE, openSqliteStore } from './sqlite-store.js';

const sample = (seed: number) => ({
  modelId: 'test-model@1',
  embedding: Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed + i)),
  quality: 50 + seed,
  thumbnail: new Uint8Array([seed, 1, 2]),
});

describe('SQLite station store', () => {
  it('migrates once, in WAL mode with full sync, and reopens', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    openSqliteStore(dir).close();
    const store = openSqliteStore(dir);
    store.close();
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('enrolls, adds and replaces samples, lists by prefix and deletes every trace', () => {
    const store = openSqliteStore(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')));
    expect(store.enrollPerson('30111222', [sample(1)], { replace: false })).toEqual({ created: true, samples: 1 });
    expect(store.enrollPerson('30111222', [sample(2), sample(3)], { replace: false })).toEqual({ created: false, samples: 3 });
    expect(store.enrollPerson('30111222', [sample(4)], { replace: true })).toEqual({ created: false, samples: 1 });
    store.enrollPerson('30999888', [sample(5)], { replace: false });
    store.enrollPerson('4011', [sample(6)], { replace: false });

    const [only] = store.listSamples('30111222');
    expect(only!.quality).toBe(54);
    expect(Array.from(only!.embedding)).toEqual(Array.from(sample(4).embedding));
    expect(store.listPersons({ prefix: '30', limit: 10, offset: 0 }).persons.map((p) => p.idPersona)).toEqual([
      '30111222',
      '30999888',
    ]);
    expect(store.listPersons({ limit: 1, offset: 1 })).toMatchObject({ total: 3, persons: [{ idPersona: '30999888' }] });

    expect(store.deletePerson('30111222')).toBe(1);
    expect(store.deletePerson('30111222')).toBeNull();
    expect(store.getPerson('30111222')).toBeNull();
    expect(store.listSamples('30111222')).toEqual([]);
    expect(store.countPersons()).toBe(2);
    store.close();
  });

  it('keeps tokens and the audit log', () => {
    const store = openSqliteStore(mkdtempSync(path.join(tmpdir(), 'enrolla-store-')));
    const now = new Date().toISOString();
    store.insertToken({
      id: 'abc',
      name: 'kiosco',
      secretHash: Buffer.alloc(32, 7),
      scopes: ['verify', 'identify'],
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(store.findToken('abc')).toMatchObject({ name: 'kiosco', scopes: ['verify', 'identify'] });
    expect(store.revokeToken('abc', now)).toBe(true);
    expect(store.revokeToken('abc', now)).toBe(false);
    for (let i = 0; i < 5; i++) {
      store.appendAudit({
        at: now,
        txId: `tx${i}`,
        operation: 'verify',
        tokenName: 'kiosco',
        idPersona: null,
        outcome: 'NOT_VERIFIED',
        httpStatus: 200,
      });
    }
    const page = store.listAudit({ limit: 2 });
    expect(page.map((e) => e.txId)).toEqual(['tx4', 'tx3']);
    expect(store.listAudit({ limit: 10, beforeSeq: page[1]!.seq }).map((e) => e.txId)).toEqual(['tx2', 'tx1', 'tx0']);
    store.close();
  });

  it('stores embeddings as raw float32 blobs (encryption at rest comes with its own issue)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-store-'));
    const store = openSqliteStore(dir);
    store.enrollPerson('x', [sample(9)], { replace: false });
    store.close();
    expect(readFileSync(path.join(dir, DATABASE_FILE)).length).toBeGreaterThan(0);
  });
});
