import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open } from '../crypto/sealed.js';
import { oneKey, personOf, SampleCodec, sampleAad } from './sample-codec.js';

const key = randomBytes(32);
const codec = new SampleCodec(oneKey(key));
const sample = (seed: number) => ({
  modelId: 'm@1',
  embedding: Float32Array.from({ length: 6 }, (_, i) => Math.sin(seed + i)),
  quality: 70,
  thumbnail: new Uint8Array([seed, 9, 9]),
});

describe('the sample codec both galleries share', () => {
  it('seals a sample to its person and field, and opens it back', () => {
    const s = sample(1);
    const sealed = codec.seal('ana', s);
    expect(sealed.embedding.includes(Buffer.from(s.embedding.buffer))).toBe(false);
    expect(Array.from(codec.embedding({ id_persona: 'ana', embedding: sealed.embedding }))).toEqual(Array.from(s.embedding));
    expect(open(key, sealed.thumbnail!, sampleAad('ana', 'thumbnail'))).toEqual(Buffer.from(s.thumbnail));
    // Moved to another person, or swapped with the other field: it does not open, and says whose it is.
    expect(() => codec.embedding({ id_persona: 'beto', embedding: sealed.embedding })).toThrow(/^Muestra de beto ilegible/);
    expect(() => codec.embedding({ id_persona: 'ana', embedding: sealed.thumbnail! })).toThrow(/ilegible/);
  });

  it('maps SQLite and PostgreSQL rows alike, opening a listing’s thumbnail and never its embedding', () => {
    const sealed = codec.seal('ana', sample(2));
    const at = '2026-11-28T10:00:00.000Z';
    const sqlite = { id: 3, id_persona: 'ana', model_id: 'm@1', quality: 70, created_at: at, thumbnail: sealed.thumbnail };
    const postgres = { ...sqlite, id: '3', created_at: new Date(at) };
    expect(codec.listing(sqlite)).toEqual({
      id: 3,
      idPersona: 'ana',
      modelId: 'm@1',
      quality: 70,
      thumbnail: sample(2).thumbnail,
      createdAt: at,
    });
    expect(codec.listing(postgres)).toEqual(codec.listing(sqlite));
    expect(personOf({ id_persona: 'ana', created_at: new Date(at), updated_at: at, samples: 2 })).toEqual({
      idPersona: 'ana',
      samples: 2,
      createdAt: at,
      updatedAt: at,
    });
  });

  it('opens a batch at once, and one that does not open is reported and left out, or fails the batch', () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({
      id_persona: `p${i}`,
      embedding: codec.seal(`p${i}`, sample(i)).embedding,
    }));
    expect(codec.embeddings(rows).map((e) => Array.from(e!))).toEqual(rows.map((_, i) => Array.from(sample(i).embedding)));
    rows[3]!.embedding[20]! ^= 1;
    const reported: string[] = [];
    const opened = codec.embeddings(rows, (s) => reported.push(s.idPersona));
    expect(opened.map((e) => e !== null)).toEqual([true, true, true, false, true]);
    expect(reported).toEqual(['p3']);
    expect(() => codec.embeddings(rows)).toThrow(/^Muestra de p3 ilegible/);
  });
});
