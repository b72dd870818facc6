import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStation } from './sqlite-station.js';
import { DATABASE_FILE } from './station-database.js';
import { BATCH, type SealedEmbeddingRow, streamUnsealed } from './stream-embeddings.js';

const key = randomBytes(32);

describe('streamUnsealed', () => {
  it('reads by ranges on its workers, and page by page on the caller when a worker cannot open the file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-stream-'));
    const store = openSqliteStation(dir, key);
    for (let p = 0; p < 3000; p++) {
      const embedding = Float32Array.from({ length: 4 }, (_, i) => p + i / 10);
      await store.gallery.enroll(`p${p}`, [{ modelId: 'm@1', embedding, quality: 60, thumbnail: null }], { replace: false });
    }
    // Deleted samples leave gaps in the ids the ranges cover.
    for (let p = 100; p < 2500; p++) await store.gallery.deletePerson(`p${p}`);
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

describe('a sample that does not open', () => {
  it('is left out and reported by every bulk read when the store has a reporter, and fails them without one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-unreadable-'));
    const fill = openSqliteStation(dir, key);
    // Two full batches and some: the damaged samples sit in different batches, one of them alone.
    const persons = Array.from({ length: 2 * BATCH + 300 }, (_, p) => `p${p}`);
    for (const [p, id] of persons.entries()) {
      const embedding = Float32Array.from({ length: 4 }, (_, i) => p + i / 10);
      await fill.gallery.enroll(id, [{ modelId: 'm@1', embedding, quality: 60, thumbnail: null }], { replace: false });
    }
    fill.close();
    const damaged = ['p7', 'p2100', 'p4390'];
    const db = new Database(path.join(dir, DATABASE_FILE));
    for (const id of damaged) {
      const row = db.prepare<[string], { embedding: Buffer }>('SELECT embedding FROM face_samples WHERE id_persona = ?').get(id)!;
      const bytes = Buffer.from(row.embedding);
      bytes[bytes.length - 1]! ^= 1;
      db.prepare('UPDATE face_samples SET embedding = ? WHERE id_persona = ?').run(bytes, id);
    }
    db.close();
    const readable = persons.filter((id) => !damaged.includes(id));

    const reported: string[] = [];
    const store = openSqliteStation(dir, key, {
      onUnreadableSample: ({ idPersona, reason }) => {
        expect(reason).toMatch(new RegExp(`^Muestra de ${idPersona} ilegible: `));
        reported.push(idPersona);
      },
    });
    const { feed } = store.gallery;
    // The persons asked for in pieces no longer than the feed reads on this thread, or all at once (on its threads).
    const byPieces = async (size: number) => {
      const seen: string[] = [];
      for (let at = 0; at < persons.length; at += size)
        await feed.embeddingsOfPersons(persons.slice(at, at + size), 'm@1', (id, list) => list.length > 0 && seen.push(id));
      return seen;
    };
    const reads: Record<string, () => Promise<string[]>> = {
      readAllNow: async () => {
        const seen: string[] = [];
        feed.readAllNow('m@1', (id) => seen.push(id));
        return seen;
      },
      readAll: async () => {
        const seen: string[] = [];
        await feed.readAll('m@1', { add: (id) => seen.push(id), bulk: () => null });
        return seen;
      },
      embeddingsOfPersons: () => byPieces(BATCH),
      embeddingsOfPersonsOnThreads: () => byPieces(persons.length),
    };
    for (const [name, read] of Object.entries(reads)) {
      reported.length = 0;
      expect({ name, seen: (await read()).sort() }).toEqual({ name, seen: [...readable].sort() });
      expect({ name, reported: reported.sort() }).toEqual({ name, reported: [...damaged].sort() });
    }
    store.close();

    // Without a reporter (key rotation, the CLI) nothing is left out silently.
    const strict = openSqliteStation(dir, key);
    expect(() => strict.gallery.feed.readAllNow('m@1', () => undefined)).toThrow(/Muestra de p7 ilegible/);
    await expect(strict.gallery.feed.readAll('m@1', { add: () => undefined, bulk: () => null })).rejects.toThrow(
      /Muestra de p7 ilegible/,
    );
    strict.close();
  });
});
