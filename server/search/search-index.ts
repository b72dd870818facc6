import type { SearchHit } from './embedding-index.js';

export type { SearchHit };

/**
 * What the operations need from a 1:N index over the gallery's embeddings: exact cosine of the
 * best sample per person. `EmbeddingIndex` (plain, exact) and `QuantizedEmbeddingIndex` (2-/4-bit
 * codes + SIMD WebAssembly, exact after re-ranking) both provide it.
 */
export interface SearchIndex {
  readonly personCount: number;
  readonly sampleCount: number;
  set(idPersona: string, embeddings: readonly Float32Array[]): void;
  add(idPersona: string, embedding: Float32Array): void;
  remove(idPersona: string): void;
  /** Every person the index holds (a follower of a shared gallery re-synchronises with it). */
  personIds(): Iterable<string>;
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[];
  /**
   * The sum of every sample's unit vector (a copy): identification centres its scores on the
   * gallery's mean sample (server/matching/gallery-centre.ts).
   */
  sampleSum(): Float64Array;
}
