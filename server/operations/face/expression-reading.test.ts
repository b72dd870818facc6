import { describe, expect, it } from 'vitest';
import { extractParametersSchema } from '../../../common/api/face-schemas.js';
import type { MajorFace, Point } from '../../engines/face/types.js';
import { emotionOf, expressionOf, expressionUnreadable, traitsOf } from './face-properties.js';

/** A frontal face 100 px between the eyes, smiling (wide mouth, raised corners, the net's happy high) or still. */
function face(over: Partial<MajorFace> = {}, { smile = false } = {}): MajorFace {
  const points: Point[] = Array.from({ length: 68 }, () => [150, 150] as Point);
  for (let i = 36; i < 42; i++) points[i] = [100, 100];
  for (let i = 42; i < 48; i++) points[i] = [200, 100];
  for (let i = 17; i < 27; i++) points[i] = [100 + (i - 17) * 11, 68];
  points[3] = [60, 190];
  points[13] = [240, 190];
  points[33] = [150, 160];
  points[8] = [150, 250];
  points[62] = [150, 200];
  points[66] = [150, 200];
  const half = smile ? 60 : 40;
  const lift = smile ? 12 : -2;
  points[48] = [150 - half, 200 - lift];
  points[54] = [150 + half, 200 - lift];
  const emotion = smile ? { happy: 0.9, neutral: 0.05, sad: 0.05 } : { happy: 0.02, neutral: 0.9, sad: 0.08 };
  return {
    box: { x: 40, y: 20, width: 220, height: 260 },
    score: 0.99,
    leftEye: [200, 100],
    rightEye: [100, 100],
    noseTip: [150, 150],
    leftEyeRegion: { x: 0, y: 0, width: 1, height: 1 },
    rightEyeRegion: { x: 0, y: 0, width: 1, height: 1 },
    noseRegion: { x: 0, y: 0, width: 1, height: 1 },
    landmarks68: points.map(([x, y]) => [x + 1, y] as Point),
    points68: points,
    iod: 100,
    yaw: 0,
    pitch: 0,
    roll: 0,
    leftEyeOpenness: 0.3,
    rightEyeOpenness: 0.3,
    mouthOpenness: 0,
    age: 30,
    gender: { type: 'MALE', score: 0.99 },
    emotion,
    real: null,
    live: null,
    image: { brightness: 0.5, contrast: 0.2, sharpness: 0.01, clipped: 0 },
    cues: null,
    presentation: null,
    embedding: null,
    thumbnail: null,
    portrait: null,
    ...over,
  };
}
const params = extractParametersSchema.parse({});
const expression = (f: MajorFace) => expressionOf(f, traitsOf(f, params));

describe('the expression and the emotion read from a face', () => {
  it('names a face the expression net reads as happy a smile, and happiness agrees', () => {
    const smiling = face({}, { smile: true });
    expect(expression(smiling).type).toBe('SMILE');
    expect(emotionOf(smiling)!.happiness).toBeGreaterThanOrEqual(50);
    const still = face();
    expect(expression(still).type).toBe('NEUTRAL');
    expect(emotionOf(still)!.happiness).toBeLessThan(50);
  });

  it('gives no reading, and says why, where the face cannot give one', () => {
    const cases: [Partial<MajorFace>, RegExp][] = [
      [{ iod: 14 }, /rostro chico/],
      [{ yaw: 60 }, /cabeza girada/],
      [{ image: { brightness: 0.05, contrast: 0.01, sharpness: 0, clipped: 0.5 } }, /oscuro/],
      [{ score: 0.4 }, /solo en parte/],
      [{ emotion: null }, /emoción/],
    ];
    for (const [over, why] of cases) {
      const f = face(over, { smile: true });
      expect(expressionUnreadable(f)).toMatch(why);
      expect(expression(f)).toEqual({ type: 'UNKNOWN', confidence: 0, motivo: expect.stringMatching(why) });
      expect(emotionOf(f)).toBeNull();
    }
  });

  it('gives no trait measured from the face where the face cannot give one, and says why', () => {
    const cues = { glasses: 0.1, darkGlasses: 0.1, beard: 0.1, mustache: 0.1, hat: 0.1 };
    const readable = traitsOf(face({ cues }, { smile: true }), params);
    expect(readable.motivo).toBeUndefined();
    expect(readable.hat).toBe(10);
    for (const over of [{ iod: 14 }, { yaw: 60 }, { score: 0.4 }] as Partial<MajorFace>[]) {
      const traits = traitsOf(face({ ...over, cues }, { smile: true }), params);
      for (const key of ['beard', 'darkGlasses', 'glasses', 'hat', 'mustache', 'openMouth'] as const)
        expect(traits[key]).toBeNull();
      expect(traits.motivo).toMatch(/los rasgos no se leen/);
      // The pose and the eyes are still read.
      expect(typeof traits.lookingFront).toBe('boolean');
    }
  });
});
