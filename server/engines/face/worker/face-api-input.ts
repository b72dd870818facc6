import { type RgbImage, mirrorRowsInPlace } from '../../../imaging/index.js';
import type { Box, Point } from '../types.js';
import { tf, type FaceApi } from './model-loader.js';
import { ReusedInt32 } from './reused-int32.js';

/**
 * The packed RGB pixels of an integer box, widened to int32 row by row (the native typed-array
 * conversion) and padded with zeros to a square the way face-api pads a network's input (its
 * padToSquare, centred: the shorter side gets round(d / 2) zeros after it and the rest before), in
 * the array `values` gives. Where the box reaches past the image its pixels are zeros too, so a
 * face the frame cuts keeps its place in the network's input instead of being shifted by a clamp.
 */
export function squareRegionInt32(
  rgb: Uint8Array,
  width: number,
  box: Box,
  values: (length: number) => Int32Array = (length) => new Int32Array(length),
): { data: Int32Array; side: number } {
  const height = rgb.length / 3 / width;
  const side = Math.max(box.width, box.height);
  const d = side - Math.min(box.width, box.height);
  const before = d - Math.round(d * 0.5);
  const left = box.width < side ? before : 0;
  const top = box.height < side ? before : 0;
  const data = values(side * side * 3);
  const x0 = Math.max(0, box.x);
  const x1 = Math.min(width, box.x + box.width);
  const inside = box.x >= 0 && box.y >= 0 && x1 === box.x + box.width && box.y + box.height <= height;
  // The padding and the parts past the image (a reused buffer holds an earlier crop).
  if (d > 0 || !inside) data.fill(0);
  for (let y = Math.max(0, box.y); y < Math.min(height, box.y + box.height) && x1 > x0; y++) {
    const from = (y * width + x0) * 3;
    data.set(rgb.subarray(from, (y * width + x1) * 3), ((top + y - box.y) * side + left + x0 - box.x) * 3);
  }
  return { data, side };
}

/** The crops a worker sends face-api's networks (several a face; tfjs copies each at once), kept for a face up to 640 px square. */
const regionValues = new ReusedInt32(640 * 640 * 3);

/**
 * An integer box of the frame as the int32 tensor face-api's networks take, already padded square
 * as they would pad it: face-api then skips its padding, and nothing is sliced out of a
 * whole-frame tensor (tfjs's WASM backend runs both as JavaScript loops per element).
 */
export function regionTensor(frame: RgbImage, box: Box, mirror = false): tf.Tensor3D {
  const { data, side } = squareRegionInt32(frame.rgb, frame.width, box, (n) => regionValues.take(n));
  // Mirrored here rather than by tf.reverse, which tfjs's WASM backend runs as a JavaScript loop per element.
  if (mirror) mirrorRowsInPlace(data, side);
  return tf.tensor3d(data, [side, side, 3], 'int32');
}

/** A square packed-RGB crop as the same int32 tensor, through the same kept buffer. */
export function cropTensor(pixels: Uint8Array, side: number, mirror = false): tf.Tensor3D {
  const data = regionValues.take(pixels.length);
  data.set(pixels);
  if (mirror) mirrorRowsInPlace(data, side);
  return tf.tensor3d(data, [side, side, 3], 'int32');
}

/** face-api's 68 landmarks (dlib layout) of the face in an integer box, in frame coordinates. */
export async function landmarksInBox(net: FaceApi['nets']['faceLandmark68Net'], frame: RgbImage, box: Box): Promise<Point[]> {
  const crop = regionTensor(frame, box);
  let positions: { x: number; y: number }[];
  try {
    positions = (await net.detectLandmarks(crop)).positions;
  } finally {
    crop.dispose();
  }
  // Back to the frame as face-api maps an input it padded itself: by half the padding on the
  // short side (not the whole columns or rows it put before, which differ by half a pixel when
  // the padding is odd).
  const padX = Math.max(0, box.height - box.width) / 2;
  const padY = Math.max(0, box.width - box.height) / 2;
  return positions.map((p) => [p.x - padX + box.x, p.y - padY + box.y]);
}
