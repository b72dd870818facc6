import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateDataKey, pendingKeyFile, writeKeyFile } from '../data-key.js';
import { openSqliteStation } from './sqlite-station.js';
import { recoverPendingRotation, rotateDataKey } from './rotate-key.js';

const sample = { modelId: 'm', embedding: Float32Array.from([0.5, -1, 2]), quality: 80, thumbnail: new Uint8Array([1, 2, 3]) };

describe('data key rotation', () => {
  it('re-seals every sample; the old key no longer opens the database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-rot-'));
    const oldKey = loadOrCreateDataKey(dir, {});
    const store = openSqliteStation(dir, oldKey);
    await store.gallery.enroll('p1', [sample, sample], { replace: false });
    store.close();
    expect(rotateDataKey(dir)).toEqual({ samples: 2 });
    const newKey = loadOrCreateDataKey(dir, {});
    expect(newKey.equals(oldKey)).toBe(false);
    const reopened = openSqliteStation(dir, newKey);
    expect((await reopened.gallery.embeddingsOf('p1')).map((s) => Array.from(s.embedding))).toEqual([
      [0.5, -1, 2],
      [0.5, -1, 2],
    ]);
    expect((await reopened.gallery.listSamples('p1')).map((s) => s.thumbnail)).toEqual([sample.thumbnail, sample.thumbnail]);
    reopened.close();
    expect(() => openSqliteStation(dir, oldKey)).toThrow(/no es la que cifró/);
  });

  it('recovers from a crash in the middle: keeps whichever key opens the database', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-rot-'));
    const key = loadOrCreateDataKey(dir, {});
    openSqliteStation(dir, key).close();
    // Crash after writing the next key but before re-sealing: the next key is abandoned.
    writeKeyFile(pendingKeyFile(dir), Buffer.alloc(32, 9));
    recoverPendingRotation(dir);
    expect(existsSync(pendingKeyFile(dir))).toBe(false);
    expect(loadOrCreateDataKey(dir, {}).equals(key)).toBe(true);
  });
});
