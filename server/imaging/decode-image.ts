import sharp from 'sharp';
import { TEMPLATE_LIMITS } from '../../common/limits.js';

export interface RgbImage {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** An image that passed the template's header checks but that no decoder can read. */
export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
}

/**
 * JPEG or PNG bytes to packed sRGB, EXIF orientation applied, bounded to the template's pixel
 * limit: the one decoding step of every engine.
 */
export async function decodeRgb(image: Uint8Array): Promise<RgbImage> {
  try {
    const { data, info } = await sharp(image, { limitInputPixels: TEMPLATE_LIMITS.maxFramePixels, failOn: 'error' })
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`${info.channels} canales`);
    return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch (error) {
    throw new ImageDecodeError(`la imagen no se pudo decodificar (${(error as Error).message})`);
  }
}
