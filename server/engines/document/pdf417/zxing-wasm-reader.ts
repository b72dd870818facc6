import { readFile } from 'node:fs/promises';
import { prepareZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';
import { modelFile } from '../../models-dir.js';

/**
 * zxing-wasm (zxing-cpp) PDF417 reader, instantiated from the local .wasm: by default the module
 * fetches its wasm from a CDN, so nothing may call `readBarcodes` before `prepare` resolved.
 * The module is a per-process singleton; options are per call.
 */
let ready: Promise<void> | null = null;

export function prepareZxingWasm(modelsDir: string): Promise<void> {
  ready ??= (async () => {
    const wasm = await readFile(modelFile(modelsDir, 'zxing', 'zxing_reader.wasm'));
    // An ArrayBuffer of exactly the file: a Buffer from readFile may sit inside a larger pool.
    const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
    await prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  })().catch((error: unknown) => {
    ready = null; // let a later call retry (e.g. after the models are installed)
    throw error;
  });
  return ready;
}

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export type WasmBinarizer = 'LocalAverage' | 'GlobalHistogram';

/** What a decoder read: the payload's bytes and, where it says, the symbol's corners in the image. */
export interface Pdf417Read {
  bytes: Uint8Array;
  corners: [number, number][] | null;
}

/** Raw payload bytes of the first valid PDF417 in a greyscale image, with its corners, or null. */
export async function readPdf417Wasm(
  modelsDir: string,
  img: GreyImage,
  binarizer: WasmBinarizer = 'LocalAverage',
): Promise<Pdf417Read | null> {
  await prepareZxingWasm(modelsDir);
  // zxing-wasm takes an ImageData-like RGBA object (duck-typed, no DOM needed).
  const rgba = new Uint8ClampedArray(img.width * img.height * 4);
  for (let i = 0, j = 0; i < img.data.length; i++, j += 4) {
    const v = img.data[i] ?? 0;
    rgba[j] = v;
    rgba[j + 1] = v;
    rgba[j + 2] = v;
    rgba[j + 3] = 255;
  }
  const options: ReaderOptions = { formats: ['PDF417'], binarizer, maxNumberOfSymbols: 1 };
  const results = await readBarcodes(
    { data: rgba, width: img.width, height: img.height, colorSpace: 'srgb' } as unknown as Parameters<typeof readBarcodes>[0],
    options,
  );
  const hit = results.find((r) => r.isValid);
  if (!hit) return null;
  const p = hit.position;
  return { bytes: hit.bytes, corners: [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map((c) => [c.x, c.y]) };
}
