import { sniffImage } from '../../../common/uitemplate/index.js';
import { greyFromRgba, type GreyPlane } from './frame-stats.js';

/** Browser-side image plumbing for the capture components: frames to JPEG, files to frames. */

export function drawFrame(video: HTMLVideoElement, canvas: HTMLCanvasElement): boolean {
  const w = video.videoWidth;
  const h = video.videoHeight;
  if (!w || !h || video.readyState < 2) return false;
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  canvas.getContext('2d', { willReadFrequently: true })!.drawImage(video, 0, 0, w, h);
  return true;
}

/** A small grey copy of a canvas, for per-frame light, sharpness and motion measures. */
export function greyOf(source: HTMLCanvasElement, width: number, scratch: HTMLCanvasElement): GreyPlane {
  const height = Math.max(1, Math.round((source.height * width) / source.width));
  if (scratch.width !== width || scratch.height !== height) {
    scratch.width = width;
    scratch.height = height;
  }
  const ctx = scratch.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, width, height);
  return greyFromRgba(ctx.getImageData(0, 0, width, height).data, width, height);
}

export async function canvasToJpeg(canvas: HTMLCanvasElement, quality = 0.92): Promise<Uint8Array> {
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
  if (!blob) throw new Error('no se pudo codificar la imagen');
  return new Uint8Array(await blob.arrayBuffer());
}

export function dataUrlOf(bytes: Uint8Array, type: string): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}

export function mimeOf(bytes: Uint8Array): 'image/jpeg' | 'image/png' {
  const s = sniffImage(bytes);
  return 'error' in s ? 'image/jpeg' : s.type;
}

/**
 * An uploaded file as template frame bytes: JPEG and PNG as they are; anything else the
 * browser can decode (WebP, HEIC on some systems…) re-encoded as JPEG.
 */
export async function fileToFrame(file: File): Promise<Uint8Array> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!('error' in sniffImage(bytes))) return bytes;
  const bitmap = await createImageBitmap(file);
  const canvas = document.createElement('canvas');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
  bitmap.close();
  return canvasToJpeg(canvas);
}

/** What the template header says about the capture device. */
export function deviceInfo(kind: 'camera' | 'file', label?: string) {
  return {
    kind,
    ...(label ? { label: label.slice(0, 128) } : {}),
    userAgent: navigator.userAgent.slice(0, 256),
    software: 'enrolla-capture 1',
  };
}
