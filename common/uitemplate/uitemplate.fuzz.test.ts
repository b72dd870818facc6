import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeJpeg, fakePng } from '../../test/images.js';
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { decodeTemplate, encodeTemplate, TemplateError } from './index.js';

// Property-based fuzzing of the decoder: whatever arrives, the answer is a decoded template or a
// TemplateError with a reason; never another exception, a hang or an unbounded allocation.
async function outcome(input: unknown): Promise<'ok' | 'refused'> {
  try {
    await decodeTemplate(input);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).message).toMatch(/^Template inválido: .{5,}/);
    return 'refused';
  }
}

const device = { kind: 'file' as const };

let cases = 0;
/** Counts the generated cases, so the run reports how many it tried. */
const runs = (n: number): number => ((cases += n), n);
afterAll(() => console.info(`fuzzing, UITemplate decoder: ${cases} cases`));

describe('UITemplate decoder under fuzzing', () => {
  it('refuses arbitrary strings and values cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.base64String(), fc.anything()), async (input) => {
        await outcome(input);
      }),
      { numRuns: runs(500) },
    );
  });

  it('refuses arbitrary bytes in base64url cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (bytes) => {
        expect(await outcome(encodeBase64url(bytes))).toBe('refused');
      }),
      { numRuns: runs(500) },
    );
  });

  it('survives mutations of valid templates: flipped, truncated, extended, spliced', async () => {
    const base = decodeBase64url(
      await encodeTemplate({ kind: 'face', frames: [{ data: fakeJpeg(320, 240) }, { data: fakePng(64, 64) }], device }),
    ) as Uint8Array;
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(base.length - 1), bit: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(base.length - 1) }),
      fc.record({ kind: fc.constant('extend' as const), extra: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
      fc.record({
        kind: fc.constant('splice' as const),
        at: fc.nat(base.length - 1),
        bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        let bytes = new Uint8Array(base);
        if (m.kind === 'flip') bytes[m.at]! ^= 1 << m.bit;
        if (m.kind === 'truncate') bytes = bytes.subarray(0, m.at);
        if (m.kind === 'extend') bytes = Uint8Array.from([...bytes, ...m.extra]);
        if (m.kind === 'splice') bytes.set(m.bytes.subarray(0, bytes.length - m.at), m.at);
        // The digest covers every byte: any change is refused (a splice may rewrite a byte with itself).
        const unchanged = bytes.length === base.length && bytes.every((b, i) => b === base[i]);
        expect(await outcome(encodeBase64url(bytes))).toBe(unchanged ? 'ok' : 'refused');
      }),
      { numRuns: runs(1000) },
    );
  });

  it('round-trips any valid combination of frames and metadata', async () => {
    const frame = fc.record({
      w: fc.integer({ min: 16, max: 8192 }),
      h: fc.integer({ min: 16, max: 3000 }),
      png: fc.boolean(),
      offsetMs: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 5 }), fc.string({ maxLength: 100 }), async (frames, label) => {
        const template = await encodeTemplate({
          kind: 'face',
          frames: frames.map((f) => ({ data: f.png ? fakePng(f.w, f.h) : fakeJpeg(f.w, f.h), offsetMs: f.offsetMs })),
          device: { kind: 'camera', label },
        });
        const decoded = await decodeTemplate(template, 'face');
        expect(decoded.frames.map((f) => [f.width, f.height])).toEqual(frames.map((f) => [f.w, f.h]));
        expect(decoded.device.label).toBe(label);
      }),
      { numRuns: runs(200) },
    );
  });
});
