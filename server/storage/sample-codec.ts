import type { PersonSummary } from '../../common/api/admin-schemas.js';
import { openAll, open, seal, SealError } from '../crypto/index.js';
import type { NewSample, SampleListing, StoredEmbedding } from './gallery.js';
import { StoreError, type UnreadableSample, unreadableSampleMessage } from './store-error.js';

/** The name of the value sealed at a gallery's creation, which tells whether a key is the one that sealed it. */
export const KEY_CHECK = 'data-key-check';

/** The check value sealed with `key`: whichever key opens it is the key of the gallery. */
export function keyCheckValue(key: Buffer): Buffer {
  return seal(key, Buffer.from('enrolla'), KEY_CHECK);
}

/**
 * What a sample's sealed values are bound to, the same in every database, so a sample sealed by
 * one opens in the other (and a value moved to another person or field does not).
 */
export function sampleAad(idPersona: string, field: 'embedding' | 'thumbnail'): string {
  return `face_samples/${field}/${idPersona}`;
}

/** The keys a gallery holds: the one new values are sealed with, and every one a value may open with. */
export interface SampleKeys {
  readonly sealing: Buffer;
  /** Throws SealError when no key opens it. */
  open(blob: Uint8Array, associated: string): Buffer;
}

export function oneKey(key: Buffer): SampleKeys {
  return { sealing: key, open: (blob, associated) => open(key, blob, associated) };
}

/** A sample row as either database returns it (PostgreSQL: its bigint id as text, its times as Date). */
export interface SampleRow {
  id: number | string;
  id_persona: string;
  model_id: string;
  quality: number;
  created_at: string | Date;
}

export interface PersonRow {
  id_persona: string;
  created_at: string | Date;
  updated_at: string | Date;
  samples: number;
}

/** A row's sealed embedding, with its person (what bulk reads select). */
export interface SealedEmbedding {
  id_persona: string;
  embedding: Uint8Array;
}

/**
 * How samples are kept in a gallery, for SQLite and PostgreSQL alike: sealed to their person and
 * field with the gallery's key, and mapped from rows to what the gallery answers.
 */
export class SampleCodec {
  constructor(private readonly keys: SampleKeys) {}

  /** A new sample's embedding and thumbnail, sealed as stored. */
  seal(idPersona: string, sample: NewSample): { embedding: Buffer; thumbnail: Buffer | null } {
    const key = this.keys.sealing;
    return {
      embedding: seal(key, floatsToBlob(sample.embedding), sampleAad(idPersona, 'embedding')),
      thumbnail: sample.thumbnail ? seal(key, sample.thumbnail, sampleAad(idPersona, 'thumbnail')) : null,
    };
  }

  /** One value opened; a StoreError naming the person when it does not open. */
  open(blob: Uint8Array, idPersona: string, field: 'embedding' | 'thumbnail'): Buffer {
    try {
      return this.keys.open(blob, sampleAad(idPersona, field));
    } catch (error) {
      if (error instanceof SealError) throw new StoreError(unreadableSampleMessage(idPersona, error.message), 'unavailable');
      throw error;
    }
  }

  embedding(row: SealedEmbedding): Float32Array {
    return blobToFloats(this.open(row.embedding, row.id_persona, 'embedding'));
  }

  /**
   * Many embeddings, opened together (open-all.ts) when every one holds under the sealing key, one
   * by one otherwise. `unreadable` (the search index's reads) takes a sample that does not open,
   * with null in its place; without it the first such sample fails the batch, naming its person.
   */
  embeddings(
    rows: readonly SealedEmbedding[],
    unreadable?: ((sample: UnreadableSample) => void) | null,
  ): (Float32Array | null)[] {
    const plain = openAll(
      this.keys.sealing,
      rows.map((r) => r.embedding),
      rows.map((r) => sampleAad(r.id_persona, 'embedding')),
    );
    if (plain) return plain.map(blobToFloats);
    return rows.map((r) => {
      try {
        return this.embedding(r);
      } catch (error) {
        if (!unreadable || !(error instanceof StoreError)) throw error;
        unreadable({ idPersona: r.id_persona, reason: error.message });
        return null;
      }
    });
  }

  /** A row as a person's record lists it: the thumbnail opened, the embedding not read. */
  listing(row: SampleRow & { thumbnail: Uint8Array | null }): SampleListing {
    return {
      id: Number(row.id),
      idPersona: row.id_persona,
      modelId: row.model_id,
      quality: row.quality,
      thumbnail: row.thumbnail ? new Uint8Array(this.open(row.thumbnail, row.id_persona, 'thumbnail')) : null,
      createdAt: isoTime(row.created_at),
    };
  }

  stored(row: SealedEmbedding & { model_id: string }): StoredEmbedding {
    return { modelId: row.model_id, embedding: this.embedding(row) };
  }
}

export function personOf(row: PersonRow): PersonSummary {
  return {
    idPersona: row.id_persona,
    samples: row.samples,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

export function floatsToBlob(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

export function blobToFloats(blob: Uint8Array): Float32Array {
  // Copy: the bytes' offset in their buffer need not be 4-byte aligned.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

const isoTime = (t: string | Date): string => (typeof t === 'string' ? t : t.toISOString());
