import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_IDS, openBlock, sealBlock } from './embedding-blocks.js';
import { keyFile, loadDataKey, writeKeyFile } from '../data-key.js';
import { rotateDataKey } from './rotate-key.js';
import { openSqliteStation, type SqliteStation } from './sqlite-station.js';
import { DATABASE_FILE } from './station-database.js';

const key = randomBytes(32);

describe('a sealed block of embeddings', () => {
  const persons = ['ana', 'bruno', 'ana', 'cé"lia\n'];
  const embeddings = [
    Float32Array.of(1, 2, 3),
    Float32Array.of(-0.5, 0.25, 8),
    Float32Array.of(0, 0, 0),
    Float32Array.of(7, 6, 5),
  ];

  it('opens to the persons and embeddings it was sealed with, in order', () => {
    const opened = openBlock(key, 'm@1', 3, null, sealBlock(key, 'm@1', 3, null, persons, embeddings));
    expect(opened.persons).toEqual(persons);
    expect([...opened.ends]).toEqual([3, 6, 9, 12]);
    expect([...opened.floats]).toEqual(embeddings.flatMap((e) => [...e]));
  });

  it("holds only each embedding's leading values when asked to", () => {
    const opened = openBlock(key, 'm@1', 3, 2, sealBlock(key, 'm@1', 3, 2, persons, embeddings));
    expect([...opened.ends]).toEqual([2, 4, 6, 8]);
    expect([...opened.floats]).toEqual(embeddings.flatMap((e) => [...e.subarray(0, 2)]));
  });

  it('opens empty, for a range whose samples were all deleted', () => {
    const opened = openBlock(key, 'm@1', 0, null, sealBlock(key, 'm@1', 0, null, [], []));
    expect(opened.persons).toEqual([]);
    expect(opened.floats.length).toBe(0);
  });

  it('does not open under another key, in another place, for another model, or altered', () => {
    const sealed = () => sealBlock(key, 'm@1', 3, null, persons, embeddings);
    expect(() => openBlock(randomBytes(32), 'm@1', 3, null, sealed())).toThrow(/bloque/);
    expect(() => openBlock(key, 'm@1', 4, null, sealed())).toThrow(/bloque/);
    expect(() => openBlock(key, 'm@1', 3, 2, sealed())).toThrow(/bloque/);
    expect(() => openBlock(key, 'm@2', 3, null, sealed())).toThrow(/bloque/);
    const altered = sealed();
    altered[40]! ^= 1;
    expect(() => openBlock(key, 'm@1', 3, null, altered)).toThrow(/bloque/);
  });
});

/** A store of `count` persons of one sample each (embedding [p, p + 0.5]), on disk so the workers read it. */
async function storeOf(count: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-blocks-'));
  const store = openSqliteStation(dir, key);
  for (let p = 0; p < count; p++) {
    await store.gallery.enroll(
      `p${p}`,
      [{ modelId: 'm@1', embedding: Float32Array.of(p, p + 0.5), quality: 60, thumbnail: null }],
      {
        replace: false,
      },
    );
  }
  return { dir, store };
}

async function streamed(store: SqliteStation, leading?: number): Promise<string[]> {
  const seen: string[] = [];
  const add = (id: string, embedding: Float32Array) => seen.push(`${id}:${[...embedding]}`);
  await store.gallery.feed.readAll('m@1', { add, bulk: () => null, ...(leading ? { leading } : {}) });
  return seen;
}

/** Runs `sql` on the store's file behind its back (the store closed): what a damaged disk or an outside edit does. */
function editFile(dir: string, sql: string): void {
  const db = new Database(path.join(dir, DATABASE_FILE));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

const blocksIn = (dir: string) => {
  const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare('SELECT block FROM embedding_blocks ORDER BY block').pluck().all() as number[];
  } finally {
    db.close();
  }
};

describe('the store keeps sealed blocks as a copy of the rows', () => {
  const count = 3 * BLOCK_IDS + 100;

  it('seals the ranges no enrollment can reach, and a rebuild reads the same from them', async () => {
    const { dir, store } = await storeOf(count);
    const rows = await streamed(store);
    expect(rows).toHaveLength(count);
    expect(store.gallery.sealEmbeddingBlocks('m@1', 2)).toEqual({ sealed: 2, missing: 1 });
    expect(store.gallery.sealEmbeddingBlocks('m@1', 10)).toEqual({ sealed: 1, missing: 0 });
    // The range holding the last id stays rows: the next enrollment lands in it.
    expect(blocksIn(dir)).toEqual([0, 1, 2]);
    expect(await streamed(store)).toEqual(rows);
    store.close();
  });

  it('reads from the blocks: rows damaged behind them do not matter, and a range without its block reads its rows', async () => {
    const { dir, store } = await storeOf(count);
    const rows = await streamed(store);
    store.gallery.sealEmbeddingBlocks('m@1', 10);
    store.close();
    // Damage the rows of block 1 without the triggers that would drop the block.
    editFile(
      dir,
      `DROP TRIGGER embedding_blocks_updated;
       UPDATE face_samples SET embedding = x'00' WHERE id > ${BLOCK_IDS} AND id <= ${2 * BLOCK_IDS};`,
    );
    const reopened = openSqliteStation(dir, key);
    expect(await streamed(reopened)).toEqual(rows);
    reopened.close();
    // Without its block, the damaged range is read from its rows, and fails.
    editFile(dir, 'DELETE FROM embedding_blocks WHERE block = 1');
    const again = openSqliteStation(dir, key);
    await expect(streamed(again)).rejects.toThrow(/ilegible/);
    again.close();
  });

  it('drops a block with any change to a sample of its range, in the same transaction', async () => {
    const { dir, store } = await storeOf(count);
    store.gallery.sealEmbeddingBlocks('m@1', 10);
    // p5 (block 0) enrolled again: its old sample (block 0) goes, its new one lands after the last id.
    await store.gallery.enroll('p5', [{ modelId: 'm@1', embedding: Float32Array.of(-5, -5), quality: 60, thumbnail: null }], {
      replace: true,
    });
    expect(blocksIn(dir)).toEqual([1, 2]);
    // A deleted person (block 2) drops that block too.
    await store.gallery.deletePerson(`p${2 * BLOCK_IDS + 7}`);
    expect(blocksIn(dir)).toEqual([1]);
    const rows = await streamed(store);
    expect(rows).toHaveLength(count - 1);
    expect(rows.at(-1)).toBe('p5:-5,-5');
    expect(rows).not.toContain('p5:5,5.5');
    expect(rows).not.toContain(`p${2 * BLOCK_IDS + 7}:${2 * BLOCK_IDS + 7},${2 * BLOCK_IDS + 7.5}`);
    // Sealed again, the blocks read as the rows do.
    expect(store.gallery.sealEmbeddingBlocks('m@1', 10)).toEqual({ sealed: 2, missing: 0 });
    expect(await streamed(store)).toEqual(rows);
    store.close();
  });

  it('falls back to the rows when a block does not open (moved to another range)', async () => {
    const { dir, store } = await storeOf(count);
    const rows = await streamed(store);
    store.gallery.sealEmbeddingBlocks('m@1', 10);
    store.close();
    editFile(dir, 'UPDATE embedding_blocks SET sealed = (SELECT sealed FROM embedding_blocks WHERE block = 0) WHERE block = 1');
    const reopened = openSqliteStation(dir, key);
    expect(await streamed(reopened)).toEqual(rows);
    reopened.close();
  });

  it('leaves no block sealed under a key the store no longer has', async () => {
    const { dir, store } = await storeOf(count);
    store.gallery.sealEmbeddingBlocks('m@1', 10);
    const rows = await streamed(store);
    store.close();
    writeKeyFile(keyFile(dir), key);
    rotateDataKey(dir);
    expect(blocksIn(dir)).toEqual([]);
    const reopened = openSqliteStation(dir, loadDataKey(dir, {})!);
    expect(reopened.gallery.sealEmbeddingBlocks('m@1', 10)).toEqual({ sealed: 3, missing: 0 });
    expect(await streamed(reopened)).toEqual(rows);
    reopened.close();
  });

  it("hands a caller wanting each embedding's first values blocks of those, and one wanting all of them the rows", async () => {
    const { store } = await storeOf(count);
    const rows = await streamed(store);
    expect(store.gallery.sealEmbeddingBlocks('m@1', 10, 1)).toEqual({ sealed: 3, missing: 0 });
    const leading = await streamed(store, 1);
    // The three sealed ranges come from their blocks (the first value only), the last range from its rows.
    expect(leading.slice(0, 3 * BLOCK_IDS)).toEqual(rows.slice(0, 3 * BLOCK_IDS).map((r) => r.split(',')[0]));
    expect(leading.slice(3 * BLOCK_IDS)).toEqual(rows.slice(3 * BLOCK_IDS));
    expect(await streamed(store)).toEqual(rows);
    // Sealed again for whole embeddings, the blocks are replaced.
    expect(store.gallery.sealEmbeddingBlocks('m@1', 10)).toEqual({ sealed: 3, missing: 0 });
    expect(await streamed(store, 1)).toEqual(rows);
    store.close();
  });
});
