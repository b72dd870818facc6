import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openSqliteStore } from './sqlite-store.js';
import { type SealedEmbeddingRow, streamUnsealed } from './stream-embeddings.js';

const key = randomBytes(32);

describe('streamUnsealed', () => {
  it('reads by ranges on its workers, and page by page on the caller when a worker cannot open the file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-stream-'));
    const store = openSqliteStore(dir, key);
    for (let p = 0; p < 3000; p++) {
      const embedding = Float32Array.from({ length: 4 }, (_, i) => p + i / 10);
      store.enrollPerson(`p${p}`, [{ modelId: 'm@1', embedding, quality: 60, thumbnail: null }], { replace: false });
    }
    // Deleted samples leave gaps in the ids the ranges cover.
    for (let p = 100; p < 2500; p++) store.deletePerson(`p${p}`);
    store.close();
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    const pageStatement = db.prepare<[number, number], SealedEmbeddingRow>(
      "SELECT id, id_persona, embedding FROM face_samples WHERE model_id = 'm@1' AND id > ? ORDER BY id LIMIT ?",
    );
    let pages = 0;
    const page = (after: number, limit: number) => {
      pages++;
      return pageStatement.all(after, limit);
    };
    const maxId = (db.prepare('SELECT max(id) AS id FROM face_samples').get() as { id: number }).id;
    const run = async (file: string) => {
      const seen: string[] = [];
      await streamUnsealed(key, page, (ids, embeddings) => ids.forEach((id, i) => seen.push(`${id}:${embeddings[i]![0]}`)), {
        ranges: { file, modelId: 'm@1', maxId },
      });
      return seen;
    };
    const expected = [
      ...Array.from({ length: 100 }, (_, p) => `p${p}:${p}`),
      ...Array.from({ length: 500 }, (_, i) => `p${2500 + i}:${2500 + i}`),
    ];
    expect(await run(path.join(dir, DATABASE_FILE))).toEqual(expected);
    expect(pages).toBe(0);
    expect(await run(path.join(dir, 'missing.sqlite'))).toEqual(expected);
    expect(pages).toBeGreaterThan(0);
    db.close();
  });
});
