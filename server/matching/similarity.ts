/** Cosine similarity; embeddings are L2-normalised once at the edge so this is a dot product. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** The normalised sum of unit vectors: one template from several views of a face, or several photos of a person. */
export function meanDirection(...vectors: Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]!;
  return normalize(out);
}

/** `into` += `factor` x `v`, element by element (sums of unit vectors are kept in float64). */
export function addInto(into: Float64Array | Float32Array, v: ArrayLike<number>, factor = 1): void {
  for (let i = 0; i < into.length; i++) into[i]! += factor * v[i]!;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  return dot(normalize(a), normalize(b));
}
