import {
  homographyFrom,
  warpPerspective,
  type Homography,
  bestHorizontalLine,
  bestVerticalLine,
  edgeMaps,
  shrink,
  type LineFit,
  laplacianVariance,
  lumaOf,
  type Plane,
  type Point,
} from '../../../imaging/index.js';

/** ID-1 card (ISO/IEC 7810): 85.60 x 53.98 mm. Canonical rectified size: 300 dpi. */
export const CARD_ASPECT = 85.6 / 53.98;
export const CANONICAL_WIDTH = 1011;
export const CANONICAL_HEIGHT = 638;

export interface LocatedCard {
  /** Corners in the source image: top-left, top-right, bottom-right, bottom-left. */
  corners: Point[];
  /** How the card was found: its four edges, or the frame itself (a scan or a tight crop). */
  method: 'edges' | 'frame';
  /** Mean coverage of the four edges, 0..1. */
  edgeStrength: number;
  /** The card rectified to the canonical size, packed RGB. */
  rgb: Uint8Array;
  width: number;
  height: number;
}

function intersect(vertical: LineFit, horizontal: LineFit): Point {
  // x = pv + sv (y - cv); y = ph + sh (x - ch)
  const { position: pv, slope: sv, centre: cv } = vertical;
  const { position: ph, slope: sh, centre: ch } = horizontal;
  const y = (ph + sh * (pv - sv * cv - ch)) / (1 - sh * sv);
  return [pv + sv * (y - cv), y];
}

/** The share of a side's length a line must cover to be taken for an edge. */
const MIN_EDGE_COVERAGE = 0.45;

/** Luma levels (of 255) a card's edge steps by, at the least, from the surface it lies on. */
const EDGE_STEP = 14;

/** The median luma of the frame's central quarter: the card's own paper, whatever is printed on it. */
function paperLuma(p: Plane): number {
  const values: number[] = [];
  for (let y = Math.round(p.height * 0.25); y < p.height * 0.75; y += 2)
    for (let x = Math.round(p.width * 0.25); x < p.width * 0.75; x += 2) values.push(p.data[y * p.width + x]!);
  values.sort((a, b) => a - b);
  return values[values.length >> 1] ?? 0;
}

/**
 * Whether a line is the card's border with the surface it lies on: on most of its length the luma
 * a few pixels outward differs, the same way, from the luma a few pixels inward, and what lies
 * outward is not the card's paper. A thin printed line or a row of text has the paper on both
 * sides between its strokes; a white patch printed on the card has the paper beyond it.
 */
function isStepEdge(p: Plane, line: LineFit, vertical: boolean, outward: -1 | 1, paper: number): boolean {
  const along = vertical ? p.height : p.width;
  const gap = 3;
  let darker = 0;
  let lighter = 0;
  const outside: number[] = [];
  for (let t = Math.round(along * 0.2); t < along * 0.8; t += 2) {
    const at = line.position + line.slope * (t - line.centre);
    const outer = Math.round(at + outward * gap);
    const inner = Math.round(at - outward * gap);
    const limit = vertical ? p.width : p.height;
    if (outer < 0 || outer >= limit || inner < 0 || inner >= limit) continue;
    const value = (q: number) => (vertical ? p.data[t * p.width + q]! : p.data[q * p.width + t]!);
    const d = value(inner) - value(outer);
    outside.push(value(outer));
    if (d >= EDGE_STEP) lighter++;
    else if (d <= -EDGE_STEP) darker++;
  }
  // A card at the very border of the frame leaves no outer side to sample: its line is the frame's.
  if (outside.length < 8) return true;
  outside.sort((a, b) => a - b);
  const beyond = outside[outside.length >> 1]!;
  return Math.max(darker, lighter) >= outside.length * 0.75 && Math.abs(beyond - paper) >= EDGE_STEP;
}

/**
 * Finds the card's four edges (a small Hough search in a band along each side of the frame,
 * since the capture overlay puts the card near the frame's edges), intersects them and warps the
 * card to the canonical size. A frame without four clear edges is taken as already cropped.
 */
export function locateCard(rgb: Uint8Array, width: number, height: number): LocatedCard {
  const luma = lumaOf(rgb, width, height);
  const factor = Math.max(1, Math.ceil(Math.max(width, height) / 480));
  const small: Plane = shrink(luma, factor);
  const e = edgeMaps(small, 80);
  const w = small.width;
  const h = small.height;
  // Each side's strongest line that is a step from the surface to the card (a line printed on
  // the card, or its text's baseline, has the card on both sides); the frame's own border where
  // no such line is found (the card reaches past the frame on that side).
  const paper = paperLuma(small);
  const side = (
    search: (from: number, to: number) => LineFit,
    from: number,
    to: number,
    outward: -1 | 1,
    border: number,
    vertical: boolean,
  ): { line: LineFit; stepped: boolean } => {
    const first = search(from, to);
    let [a, b] = [from, to];
    for (let line = first, attempt = 0; line.coverage >= MIN_EDGE_COVERAGE && attempt < 3; attempt++) {
      if (isStepEdge(small, line, vertical, outward, paper)) return { line, stepped: true };
      // Only lines nearer the frame's border are left to try.
      if (outward < 0) b = line.position - 2;
      else a = line.position + 2;
      if (b - a < 3) break;
      line = search(a, b);
    }
    const atBorder = { coverage: first.coverage, position: border, slope: 0, centre: vertical ? h / 2 : w / 2 };
    return { line: atBorder, stepped: false };
  };
  const sides = [
    side((a, b) => bestVerticalLine(e, a, b, h * 0.2, h * 0.8), 0, w * 0.3, -1, 0, true),
    side((a, b) => bestVerticalLine(e, a, b, h * 0.2, h * 0.8), w * 0.7, w - 1, 1, w - 1, true),
    side((a, b) => bestHorizontalLine(e, a, b, w * 0.2, w * 0.8), 0, h * 0.3, -1, 0, false),
    side((a, b) => bestHorizontalLine(e, a, b, w * 0.2, w * 0.8), h * 0.7, h - 1, 1, h - 1, false),
  ];
  const [left, right, top, bottom] = sides.map((x) => x.line) as [LineFit, LineFit, LineFit, LineFit];
  const edgeStrength = (left.coverage + right.coverage + top.coverage + bottom.coverage) / 4;
  let corners: Point[] = [
    [0, 0],
    [width, 0],
    [width, height],
    [0, height],
  ];
  let method: LocatedCard['method'] = 'frame';
  // Two of the card's own edges at least: the others may lie past the frame.
  const stepped = sides.filter((x) => x.stepped).length;
  if (stepped >= 2) {
    const found = [intersect(left, top), intersect(right, top), intersect(right, bottom), intersect(left, bottom)].map(
      ([x, y]) => [x * factor, y * factor] as Point,
    );
    const widthTop = Math.hypot(found[1]![0] - found[0]![0], found[1]![1] - found[0]![1]);
    const heightLeft = Math.hypot(found[3]![0] - found[0]![0], found[3]![1] - found[0]![1]);
    const aspect = widthTop / heightLeft;
    // Only a plausible card: the right shape (perspective allowed) and a real share of the frame.
    if (aspect > CARD_ASPECT * 0.7 && aspect < CARD_ASPECT * 1.4 && widthTop > width * 0.35) {
      corners = found;
      method = 'edges';
    }
  }
  const dst: Point[] = [
    [0, 0],
    [CANONICAL_WIDTH, 0],
    [CANONICAL_WIDTH, CANONICAL_HEIGHT],
    [0, CANONICAL_HEIGHT],
  ];
  const toSource = homographyFrom(dst, corners) as Homography;
  return {
    corners,
    method,
    edgeStrength,
    rgb: warpPerspective(rgb, width, height, toSource, CANONICAL_WIDTH, CANONICAL_HEIGHT),
    width: CANONICAL_WIDTH,
    height: CANONICAL_HEIGHT,
  };
}

export interface CaptureQuality {
  /** Laplacian variance of the rectified card (0..1 scale squared); low is blurred. */
  sharpness: number;
  /** Share of blown-out pixels (glare) on the card. */
  glare: number;
}

export function captureQuality(card: LocatedCard): CaptureQuality {
  const luma = lumaOf(card.rgb, card.width, card.height);
  let blown = 0;
  for (const v of luma.data) if (v >= 250) blown++;
  return {
    sharpness: laplacianVariance(luma, { x: 0, y: 0, width: card.width, height: card.height }, 2),
    glare: blown / luma.data.length,
  };
}
