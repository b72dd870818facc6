export interface PhotoOutcome {
  file: string;
  identity: string;
  /** Genuine pairs the photo is in (against each other photo of its person). */
  genuine_pairs: number;
  /** Of them, the pairs scoring under the threshold. */
  failed: number;
  /** The photo's best score against another photo of its person. */
  best_genuine: number;
}

/**
 * The photos behind the genuine pairs that fail at `threshold`, most failures first (ties: the
 * lower best score first), at most `count`, only photos with a failure. A photo that fails against
 * every other photo of its person is usually a mislabelled photo, a second face taken for the
 * person, or a face the descriptor cannot read (turned, tiny, blurred): what to look at first when
 * measuring on one's own people.
 */
export function hardestPhotos<T extends { file: string; identity: string }>(
  photos: readonly T[],
  score: (a: T, b: T) => number,
  threshold: number,
  count: number,
): PhotoOutcome[] {
  const outcome = photos.map((p) => ({
    file: p.file,
    identity: p.identity,
    genuine_pairs: 0,
    failed: 0,
    best_genuine: -Infinity,
  }));
  for (let i = 0; i < photos.length; i++) {
    for (let j = i + 1; j < photos.length; j++) {
      if (photos[i]!.identity !== photos[j]!.identity) continue;
      const s = score(photos[i]!, photos[j]!);
      for (const o of [outcome[i]!, outcome[j]!]) {
        o.genuine_pairs++;
        if (s < threshold) o.failed++;
        o.best_genuine = Math.max(o.best_genuine, s);
      }
    }
  }
  return outcome
    .filter((o) => o.failed > 0)
    .sort((a, b) => b.failed - a.failed || a.best_genuine - b.best_genuine)
    .slice(0, count);
}
