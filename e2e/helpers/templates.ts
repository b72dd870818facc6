import { readFileSync } from 'node:fs';
import { encodeTemplate } from '../../common/uitemplate/index.js';

export const FIXTURES = new URL('../../test/fixtures/', import.meta.url).pathname;

export const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(`${FIXTURES}${name}`));

/** A face UITemplate from fixture photos, as the capture component would send it. */
export function faceTemplate(...names: string[]): Promise<string> {
  return faceTemplateOf(...names.map(fixture));
}

/** A face UITemplate from images made by the test (JPEG or PNG bytes), one frame each, 200 ms apart. */
export function faceTemplateOf(...images: Uint8Array[]): Promise<string> {
  return encodeTemplate({
    kind: 'face',
    frames: images.map((data, i) => ({ data, offsetMs: i * 200 })),
    device: { kind: 'file', software: 'e2e' },
  });
}
