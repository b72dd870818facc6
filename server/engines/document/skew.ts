/**
 * Skew of horizontal lines of ink (MRZ text; PDF417 bars after turning the image 90°), in degrees
 * clockwise (sharp's sense: rotate by minus this to level them), by projection profiles: the angle
 * whose row histogram of dark pixels is most peaked. Searched over ±12° in 0.5° steps; meant for a
 * small copy (~320 px wide), where it costs ~10-30 ms. Enough for a hand-held card; a card turned
 * further needs localisation first.
 */
export function estimateSkew(data: Uint8Array, width: number, height: number): number {
  let min = 255;
  let max = 0;
  for (const v of data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const threshold = min + (max - min) * 0.45;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if ((data[y * width + x] ?? 255) < threshold) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length < 50) return 0;
  const bins = height * 2 + width; // rotated row positions stay within this range
  let best = 0;
  let bestScore = -1;
  for (let a = -12; a <= 12.001; a += 0.5) {
    const t = (a * Math.PI) / 180;
    const [sin, cos] = [Math.sin(t), Math.cos(t)];
    const hist = new Float64Array(bins);
    for (let i = 0; i < xs.length; i++) {
      const r = Math.round((ys[i] ?? 0) * cos - (xs[i] ?? 0) * sin + width);
      if (r >= 0 && r < bins) hist[r] = (hist[r] ?? 0) + 1;
    }
    let score = 0;
    for (const v of hist) score += v * v;
    if (score > bestScore + 1e-9 || (Math.abs(score - bestScore) < 1e-9 && Math.abs(a) < Math.abs(best))) {
      [best, bestScore] = [a, score];
    }
  }
  return best;
}
