import sharp from 'sharp';

/** A rendered card side as the engines take it: packed RGB and its size. */
export async function cardPixels(png: Buffer): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data), width: info.width, height: info.height };
}
