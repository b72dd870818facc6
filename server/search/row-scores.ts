/** FNV-1a over a float row's bits: each re-ranked row read back from disk is checked against it. */
export function rowHash(bits: Int32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ bits[i]!, 0x01000193);
  return h | 0;
}

/**
 * For `n` rows of `dim` floats laid end to end in `rows`: each row's hash (rowHash) into `hashes`
 * and its dot product with `q` (similarity.ts `dot`: float64 sums in index order) into `dots`.
 * Four rows at a time: each row's own chain runs in the same order as the one-row functions, so
 * the results are bit-identical, and the four independent chains hide each other's latency (one
 * row at a time, the re-ranking waited on them).
 */
export function hashAndDotRows(
  q: Float32Array,
  rows: Float32Array,
  dim: number,
  n: number,
  hashes: Int32Array,
  dots: Float64Array,
): void {
  const bits = new Int32Array(rows.buffer, rows.byteOffset, n * dim);
  let r = 0;
  for (; r + 4 <= n; r += 4) {
    const o0 = r * dim;
    const o1 = o0 + dim;
    const o2 = o1 + dim;
    const o3 = o2 + dim;
    let h0 = 0x811c9dc5;
    let h1 = h0;
    let h2 = h0;
    let h3 = h0;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < dim; i++) {
      const x = q[i]!;
      h0 = Math.imul(h0 ^ bits[o0 + i]!, 0x01000193);
      s0 += x * rows[o0 + i]!;
      h1 = Math.imul(h1 ^ bits[o1 + i]!, 0x01000193);
      s1 += x * rows[o1 + i]!;
      h2 = Math.imul(h2 ^ bits[o2 + i]!, 0x01000193);
      s2 += x * rows[o2 + i]!;
      h3 = Math.imul(h3 ^ bits[o3 + i]!, 0x01000193);
      s3 += x * rows[o3 + i]!;
    }
    hashes[r] = h0 | 0;
    hashes[r + 1] = h1 | 0;
    hashes[r + 2] = h2 | 0;
    hashes[r + 3] = h3 | 0;
    dots[r] = s0;
    dots[r + 1] = s1;
    dots[r + 2] = s2;
    dots[r + 3] = s3;
  }
  for (; r < n; r++) {
    const o = r * dim;
    let h = 0x811c9dc5;
    let s = 0;
    for (let i = 0; i < dim; i++) {
      h = Math.imul(h ^ bits[o + i]!, 0x01000193);
      s += q[i]! * rows[o + i]!;
    }
    hashes[r] = h | 0;
    dots[r] = s;
  }
}
