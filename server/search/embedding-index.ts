import { addInto, dot, normalize } from '../matching/index.js';

export interface SearchHit {
  idPersona: string;
  /** Best cosine similarity over the person's samples. */
  score: number;
}

/**
 * Exact search over every sample, best sample per person, in plain JavaScript: the reference the
 * station's `QuantizedEmbeddingIndex` is tested and benchmarked against (same API, same scores).
 */
export class EmbeddingIndex {
  private readonly persons = new Map<string, Float32Array[]>();
  private samples = 0;
  private readonly sum: Float64Array;

  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
  }

  get personCount(): number {
    return this.persons.size;
  }

  get sampleCount(): number {
    return this.samples;
  }

  /** Replaces a person's samples. */
  set(idPersona: string, embeddings: readonly Float32Array[]): void {
    this.remove(idPersona);
    const list = embeddings.filter((e) => e.length === this.dim).map(normalize);
    if (list.length === 0) return;
    this.persons.set(idPersona, list);
    this.samples += list.length;
    for (const e of list) addInto(this.sum, e);
  }

  add(idPersona: string, embedding: Float32Array): void {
    if (embedding.length !== this.dim) return;
    const list = this.persons.get(idPersona) ?? [];
    const unit = normalize(embedding);
    list.push(unit);
    this.persons.set(idPersona, list);
    this.samples++;
    addInto(this.sum, unit);
  }

  remove(idPersona: string): void {
    const list = this.persons.get(idPersona);
    if (!list) return;
    this.samples -= list.length;
    for (const e of list) addInto(this.sum, e, -1);
    this.persons.delete(idPersona);
  }

  personIds(): Iterable<string> {
    return this.persons.keys();
  }

  sampleSum(): Float64Array {
    return this.sum.slice();
  }

  /** The `k` best persons for a probe, best first, optionally leaving one person out. */
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[] {
    const q = normalize(probe);
    const hits: SearchHit[] = [];
    for (const [idPersona, list] of this.persons) {
      if (idPersona === exclude) continue;
      let best = -1;
      for (const e of list) best = Math.max(best, dot(q, e));
      if (hits.length < k || best > hits[hits.length - 1]!.score) {
        hits.push({ idPersona, score: best });
        hits.sort((a, b) => b.score - a.score);
        if (hits.length > k) hits.pop();
      }
    }
    return hits;
  }
}
