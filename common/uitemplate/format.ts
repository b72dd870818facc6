import { z } from 'zod';
import { TEMPLATE_LIMITS } from '../limits.js';

/**
 * UITemplate, format version 1 (docs/uitemplate.md):
 *   base64url( "ENRL" | version:u8 | kind:u8 | headerLength:u32be | header JSON | frame bytes... | sha256 )
 * The digest covers every byte before it.
 */
export const TEMPLATE_MAGIC = [0x45, 0x4e, 0x52, 0x4c] as const; // "ENRL"
export const TEMPLATE_VERSION = 1;
export const PREFIX_BYTES = 10;
export const DIGEST_BYTES = 32;

export const TEMPLATE_KINDS = { face: 0x46, document: 0x44 } as const; // 'F', 'D'
export type TemplateKind = keyof typeof TEMPLATE_KINDS;

export const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const shortText = (max: number) => z.string().max(max);

export const frameHeaderSchema = z.strictObject({
  type: z.enum(['image/jpeg', 'image/png']),
  bytes: z.number().int().positive().max(TEMPLATE_LIMITS.maxFrameBytes),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** Milliseconds since the first frame of a capture sequence. */
  offsetMs: z.number().int().min(0).max(60_000).optional(),
  /** Which side of a document the frame shows. */
  side: z.enum(['front', 'back']).optional(),
});

export const templateHeaderSchema = z.strictObject({
  fechaCreacionTemplate: z.string().regex(ISO_UTC_MILLIS, 'debe ser ISO 8601 UTC con milisegundos'),
  device: z.strictObject({
    kind: z.enum(['camera', 'file', 'scanner']),
    label: shortText(128).optional(),
    userAgent: shortText(256).optional(),
    software: shortText(64).optional(),
  }),
  settings: z
    .record(shortText(64), z.union([shortText(256), z.number(), z.boolean()]))
    .refine((r) => Object.keys(r).length <= 32, 'admite hasta 32 claves')
    .optional(),
  frames: z.array(frameHeaderSchema).min(1),
});

export type FrameHeader = z.infer<typeof frameHeaderSchema>;
export type TemplateHeader = z.infer<typeof templateHeaderSchema>;

export interface TemplateFrame extends FrameHeader {
  data: Uint8Array;
}

export interface DecodedTemplate {
  kind: TemplateKind;
  version: number;
  fechaCreacionTemplate: string;
  device: TemplateHeader['device'];
  settings: Record<string, string | number | boolean>;
  frames: TemplateFrame[];
  /** Hex SHA-256 of the template: a stable key for caches and the audit trail. */
  digest: string;
}

export class TemplateError extends Error {
  constructor(readonly reason: string) {
    super(`Template inválido: ${reason}`);
    this.name = 'TemplateError';
  }
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
