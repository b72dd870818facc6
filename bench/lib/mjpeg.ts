import { readFileSync } from 'node:fs';

/** The JPEG frames of a Motion-JPEG file (concatenated JPEGs). */
export function mjpegFrames(file: string): Buffer[] {
  const bytes = readFileSync(file);
  const frames: Buffer[] = [];
  let from = 0;
  for (;;) {
    const start = bytes.indexOf(Buffer.from([0xff, 0xd8, 0xff]), from);
    if (start < 0) break;
    const end = bytes.indexOf(Buffer.from([0xff, 0xd9]), start);
    if (end < 0) break;
    frames.push(bytes.subarray(start, end + 2));
    from = end + 2;
  }
  return frames;
}
