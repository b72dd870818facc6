import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate, faceTemplateOf, fixture } from '../helpers/templates.js';

// Real engines, images made here: what a careless client sends must come back as "no usable
// face" with the reason, never as somebody's face and never as a server error.
let t: TestStation;
let token: string;

interface Data {
  status: string;
  motivo?: string;
  [key: string]: unknown;
}

async function call(op: keyof typeof OPERATIONS, body: unknown): Promise<Data> {
  return expectEnvelope(await t.post(OPERATIONS[op].path, body, token), 200).data as Data;
}

const jpeg = async (image: Sharp) => new Uint8Array(await image.jpeg({ quality: 90 }).toBuffer());
const plain = (background: string) => jpeg(sharp({ create: { width: 640, height: 480, channels: 3, background } }));

/** A room without anyone: a wall's gradient, a door, a window and sensor noise. */
async function emptyRoom(): Promise<Uint8Array> {
  const w = 640;
  const h = 480;
  const rgb = new Uint8Array(w * h * 3);
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 12;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const door = x > 80 && x < 200 && y > 100;
      const window = x > 380 && x < 580 && y > 60 && y < 240;
      const base = door ? [110, 80, 60] : window ? [200, 215, 235] : [190 - y / 8, 180 - y / 8, 160 - y / 10];
      for (let c = 0; c < 3; c++) rgb[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, base[c]! + noise()));
    }
  }
  return jpeg(sharp(rgb, { raw: { width: w, height: h, channels: 3 } }));
}

/** The face's box in a fixture photo, as extraction reports it. */
async function faceBox(name: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const data = await call('extractFace', { template: await faceTemplate(name) });
  expect(data.status).toBe('OK');
  const { x, y, width, height } = (data.properties as { position: { x: number; y: number; width: number; height: number } })
    .position;
  return { x, y, width, height };
}

/** The photo cut at the face's vertical middle: the frame's edge runs down the nose. */
async function halfFace(name: string): Promise<Uint8Array> {
  const box = await faceBox(name);
  const meta = await sharp(fixture(name)).metadata();
  const left = Math.round(box.x + box.width / 2);
  return jpeg(sharp(fixture(name)).extract({ left, top: 0, width: meta.width! - left, height: meta.height! }));
}

/** The photo shrunk until its face is `px` wide, on a frame of the photo's own size class. */
async function faceOfWidth(name: string, px: number): Promise<Uint8Array> {
  const box = await faceBox(name);
  const meta = await sharp(fixture(name)).metadata();
  const width = Math.max(16, Math.round((meta.width! * px) / box.width));
  const small = await sharp(fixture(name)).resize({ width }).png().toBuffer();
  return jpeg(
    sharp({ create: { width: 640, height: 480, channels: 3, background: '#8a8a8a' } }).composite([
      { input: small, left: 200, top: 150 },
    ]),
  );
}

beforeAll(async () => {
  t = await startTestStation({}, { waitForEngines: true });
  token = t.token(['enroll', 'verify', 'identify', 'extract', 'spoof']);
  expect((await call('enroll', { idPersona: 'obama', template: await faceTemplate('fr-obama.jpg') })).status).toBe('SUCCESS');
}, 120_000);
afterAll(() => t?.stop());

describe('images without a usable face', () => {
  const cases: [string, () => Promise<Uint8Array>][] = [
    ['a room with nobody in it', emptyRoom],
    ['a black frame', () => plain('#000000')],
    ['a white frame', () => plain('#ffffff')],
    ['a face cut in half by the frame edge', () => halfFace('fr-obama.jpg')],
    ['a face 20 px wide', () => faceOfWidth('fr-obama.jpg', 20)],
  ];
  for (const [what, make] of cases) {
    it(`${what}: no face is found in it by any operation, and each says why`, async () => {
      const template = await faceTemplateOf(await make());
      const answers: Record<string, Data> = {
        extractFace: await call('extractFace', { template }),
        enroll: await call('enroll', { idPersona: `nadie-${what}`, template }),
        verify: await call('verify', { idPersona: 'obama', template }),
        identify: await call('identify', { template }),
        spoof: await call('spoof', { template }),
        spoofJudged: await call('spoof', { template, parametros: { singleFrame: 'judge' } }),
      };
      for (const [op, data] of Object.entries(answers)) {
        expect(
          ['FACE_NOT_DETECTED', 'FACE_TOO_SMALL'],
          `${op}: ${JSON.stringify({ ...data, face: undefined, faceImage: undefined, properties: undefined })}`,
        ).toContain(data.status);
        expect(data.motivo, op).toMatch(/\w{4,}/);
      }
    }, 60_000);
  }
});
