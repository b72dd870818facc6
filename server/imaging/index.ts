// Imaging's entry point: decoding, pixels, lines, homographies, metadata stripped.
export { decodeRgb, ImageDecodeError, type RgbImage } from './decode-image.js';
export { type Homography, homographyFrom, warpPerspective } from './homography.js';
export { withoutPersonalMetadata } from './jpeg-metadata.js';
export { bestHorizontalLine, bestVerticalLine, edgeMaps, type LineFit, shrink } from './lines.js';
export {
  chromaMean,
  clampBox,
  darkLineDepth,
  gradientEnergy,
  hairShare,
  laplacianVariance,
  lumaOf,
  mirrorRowsInPlace,
  type Plane,
  regionStats,
} from './pixels.js';
export type { Box, Point } from './shapes.js';
