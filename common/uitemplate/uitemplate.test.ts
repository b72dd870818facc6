import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fakeJpeg, fakePng } from '../../test/images.js';
import { MAX_TEMPLATE_CHARS } from '../limits.js';
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { DIGEST_BYTES, PREFIX_BYTES, sha256 } from './format.js';
import { decodeTemplate, encodeTemplate, sniffImage, TemplateError } from './index.js';

const device = { kind: 'file' as const, software: 'test' };
const photo = new Uint8Array(readFileSync(new URL('../../test/fixtures/face-a.jpg', import.meta.url)));

async function rebuild(template: string, edit: (bytes: Uint8Array) => Uint8Array, redigest = true): Promise<string> {
  const bytes = edit(new Uint8Array(decodeBase64url(template) as Uint8Array));
  if (redigest) bytes.set(await sha256(bytes.subarray(0, bytes.length - DIGEST_BYTES)), bytes.length - DIGEST_BYTES);
  return encodeBase64url(bytes);
}

async function reason(text: unknown, kind?: 'face' | 'document'): Promise<string> {
  try {
    await decodeTemplate(text, kind);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return (error as TemplateError).message;
  }
  throw new Error('decoding should have failed');
}

describe('base64url', () => {
  it('round-trips every length and byte value', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n * 11) & 255);
      const text = encodeBase64url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(Array.from(decodeBase64url(text) as Uint8Array)).toEqual(Array.from(bytes));
    }
  });

  it('rejects padding, whitespace and the standard alphabet', () => {
    for (const bad of ['QUJD=', 'QU JD', 'QU+D', 'QU/D', 'Q']) expect(decodeBase64url(bad)).not.toBeInstanceOf(Uint8Array);
  });
});

describe('image sniffing', () => {
  it('reads type and size from JPEG and PNG headers', () => {
    expect(sniffImage(fakeJpeg(640, 480))).toEqual({ type: 'image/jpeg', width: 640, height: 480 });
    expect(sniffImage(fakePng(33, 77))).toEqual({ type: 'image/png', width: 33, height: 77 });
    expect(sniffImage(photo)).toMatchObject({ type: 'image/jpeg' });
  });

  it('refuses non-images and truncated headers', () => {
    expect(sniffImage(new TextEncoder().encode('GIF89a....'))).toHaveProperty('error');
    expect(sniffImage(fakeJpeg(10, 10).subarray(0, 12))).toHaveProperty('error');
    expect(sniffImage(fakePng(10, 10).subarray(0, 20))).toHaveProperty('error');
  });
});

describe('UITemplate', () => {
  it('round-trips a face sequence with its metadata', async () => {
    const createdAt = new Date('2026-03-01T12:34:56.789Z');
    const template = await encodeTemplate({
      kind: 'face',
      frames: [
        { data: photo, offsetMs: 0 },
        { data: fakePng(64, 48), offsetMs: 120 },
      ],
      device: { kind: 'camera', label: 'Logitech C920' },
      settings: { width: 640, facingMode: 'user' },
      createdAt,
    });
    expect(template).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = await decodeTemplate(template, 'face');
    expect(decoded.kind).toBe('face');
    expect(decoded.fechaCreacionTemplate).toBe('2026-03-01T12:34:56.789Z');
    expect(decoded.device.label).toBe('Logitech C920');
    expect(decoded.settings).toEqual({ width: 640, facingMode: 'user' });
    expect(decoded.frames).toHaveLength(2);
    expect(Buffer.from(decoded.frames[0]!.data).equals(Buffer.from(photo))).toBe(true);
    expect(decoded.frames[1]).toMatchObject({ type: 'image/png', width: 64, height: 48, offsetMs: 120 });
    expect(decoded.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('round-trips a document with front and back', async () => {
    const template = await encodeTemplate({
      kind: 'document',
      frames: [
        { data: fakeJpeg(1000, 630), side: 'front' },
        { data: fakeJpeg(1000, 630), side: 'back' },
      ],
      device,
    });
    const decoded = await decodeTemplate(template, 'document');
    expect(decoded.frames.map((f) => f.side)).toEqual(['front', 'back']);
  });

  it('refuses to encode what it could not decode', async () => {
    await expect(encodeTemplate({ kind: 'face', frames: [], device })).rejects.toThrow(TemplateError);
    const six = Array.from({ length: 6 }, () => ({ data: fakeJpeg(100, 100) }));
    await expect(encodeTemplate({ kind: 'face', frames: six, device })).rejects.toThrow(/entre 1 y 5/);
    await expect(encodeTemplate({ kind: 'face', frames: [{ data: new Uint8Array(100) }], device })).rejects.toThrow(
      /JPEG ni PNG/,
    );
  });

  describe('decoding refuses, saying why,', () => {
    let good: string;
    const goodTemplate = async () =>
      (good ??= await encodeTemplate({ kind: 'face', frames: [{ data: fakeJpeg(640, 480) }], device }));

    it('non-strings, empty and oversized input', async () => {
      expect(await reason(42)).toMatch(/texto base64url/);
      expect(await reason('')).toMatch(/vacío/);
      expect(await reason('A'.repeat(MAX_TEMPLATE_CHARS + 1))).toMatch(/máximo/);
    });

    it('bad characters, with their position', async () => {
      expect(await reason('QUJD QUJD')).toMatch(/posición 4/);
    });

    it('foreign data, truncation and tampering', async () => {
      const t = await goodTemplate();
      expect(await reason(encodeBase64url(new TextEncoder().encode('hello world, this is not a template at all......')))).toMatch(
        /firma/,
      );
      expect(await reason(t.slice(0, t.length - 40))).toMatch(/resumen SHA-256|longitud/);
      const tampered = await rebuild(t, (b) => ((b[PREFIX_BYTES + 3]! ^= 1), b), false);
      expect(await reason(tampered)).toMatch(/resumen SHA-256/);
    });

    it('unknown versions and kinds, and the wrong kind for the operation', async () => {
      const t = await goodTemplate();
      expect(await reason(await rebuild(t, (b) => ((b[4] = 2), b)))).toMatch(/versión de formato 2 no soportada/);
      expect(await reason(await rebuild(t, (b) => ((b[5] = 0x58), b)))).toMatch(/tipo de template desconocido/);
      expect(await reason(t, 'document')).toMatch(/se esperaba un template de documento/);
    });

    it('header faults: length, JSON, schema', async () => {
      const t = await goodTemplate();
      expect(await reason(await rebuild(t, (b) => (new DataView(b.buffer).setUint32(6, 0xffffff), b)))).toMatch(
        /cabecera inválida/,
      );
      const headerEdit = (from: string, to: string) => (b: Uint8Array) => {
        const len = new DataView(b.buffer).getUint32(6);
        const text = new TextDecoder().decode(b.subarray(PREFIX_BYTES, PREFIX_BYTES + len)).replace(from, to);
        const bytes = new TextEncoder().encode(text);
        expect(bytes.length).toBe(len);
        b.set(bytes, PREFIX_BYTES);
        return b;
      };
      expect(await reason(await rebuild(t, headerEdit('{"fecha', '["fecha')))).toMatch(/JSON/);
      expect(await reason(await rebuild(t, headerEdit('"kind":"file"', '"kind":"fax!"')))).toMatch(/device\.kind/);
      expect(await reason(await rebuild(t, headerEdit('"width":640', '"width":641')))).toMatch(
        /declara 641x480 pero mide 640x480/,
      );
      expect(await reason(await rebuild(t, headerEdit('"image/jpeg"', '"image/png" ')))).toMatch(/JSON|declara image\/png/);
    });

    it('frames that are not images, or too large to decode safely', async () => {
      const bomb = await encodeTemplate({ kind: 'face', frames: [{ data: fakeJpeg(100, 100) }], device });
      const huge = await rebuild(bomb, (b) => {
        const sof = b.findIndex((v, i) => v === 0xff && b[i + 1] === 0xc0 && i > PREFIX_BYTES);
        b.set([0xff, 0xff, 0xff, 0xff], sof + 5); // 65535 x 65535
        const len = new DataView(b.buffer).getUint32(6);
        const text = new TextDecoder()
          .decode(b.subarray(PREFIX_BYTES, PREFIX_BYTES + len))
          .replace('"width":100,"height":100', '"width":65535,"height":65535');
        const header = new TextEncoder().encode(text);
        const out = new Uint8Array(b.length + header.length - len);
        out.set(b.subarray(0, PREFIX_BYTES));
        new DataView(out.buffer).setUint32(6, header.length);
        out.set(header, PREFIX_BYTES);
        out.set(b.subarray(PREFIX_BYTES + len), PREFIX_BYTES + header.length);
        return out;
      });
      expect(await reason(huge)).toMatch(/65535x65535 supera el máximo/);
    });
  });
});
