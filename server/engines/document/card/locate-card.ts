import { homographyFrom, warpPerspective, type Homography } from '../../../imaging/homography.js';
import { bestHorizontalLine, bestVerticalLine, edgeMaps, shrink, type LineFit } from '../../../imaging/lines.js';
import { laplacianVariance, lumaOf, type Plane } from '../../../imaging/pixels.js';
import type { Point } from '../../../imaging/shapes.js';

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
  const left = bestVerticalLine(e, 0, w * 0.3, h * 0.2, h * 0.8);
  const right = bestVerticalLine(e, w * 0.7, w - 1, h * 0.2, h * 0.8);
  const top = bestHorizontalLine(e, 0, h * 0.3, w * 0.2, w * 0.8);
  const bottom = bestHorizontalLine(e, h * 0.7, h - 1, w * 0.2, w * 0.8);
  const edgeStrength = (left.coverage + right.coverage + top.coverage + bottom.coverage) / 4;
  let corners: Point[] = [
    [0, 0],
    [width, 0],
    [width, height],
    [0, height],
  ];
  let method: LocatedCard['method'] = 'frame';
  if (Math.min(left.coverage, right.coverage, top.coverage, bottom.coverage) >= 0.45) {
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
