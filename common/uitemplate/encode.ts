import { TEMPLATE_LIMITS } from '../limits.js';
import { encodeBase64url } from './base64url.js';
import {
  DIGEST_BYTES,
  PREFIX_BYTES,
  TEMPLATE_KINDS,
  TEMPLATE_MAGIC,
  TEMPLATE_VERSION,
  TemplateError,
  sha256,
  templateHeaderSchema,
  type TemplateHeader,
  type TemplateKind,
} from './format.js';
import { sniffImage } from './image-sniff.js';

export interface FrameInput {
  data: Uint8Array;
  offsetMs?: number;
  side?: 'front' | 'back';
}

export interface EncodeInput {
  kind: TemplateKind;
  frames: FrameInput[];
  device: TemplateHeader['device'];
  settings?: TemplateHeader['settings'];
  /** Defaults to now. */
  createdAt?: Date;
}

/** Builds a UITemplate string; refuses anything the decoder would refuse. */
export async function encodeTemplate(input: EncodeInput): Promise<string> {
  const maxFrames = input.kind === 'face' ? TEMPLATE_LIMITS.maxFaceFrames : TEMPLATE_LIMITS.maxDocumentFrames;
  if (input.frames.length < 1 || input.frames.length > maxFrames) {
    throw new TemplateError(`un template de tipo ${input.kind} lleva entre 1 y ${maxFrames} imágenes`);
  }
  const frames = input.frames.map((frame, index) => {
    const sniffed = sniffImage(frame.data);
    if ('error' in sniffed) throw new TemplateError(`imagen ${index + 1}: ${sniffed.error}`);
    return {
      type: sniffed.type,
      bytes: frame.data.length,
      width: sniffed.width,
      height: sniffed.height,
      ...(frame.offsetMs !== undefined ? { offsetMs: frame.offsetMs } : {}),
      ...(frame.side !== undefined ? { side: frame.side } : {}),
    };
  });
  const header = templateHeaderSchema.parse({
    fechaCreacionTemplate: (input.createdAt ?? new Date()).toISOString(),
    device: input.device,
    ...(input.settings ? { settings: input.settings } : {}),
    frames,
  });
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const frameTotal = input.frames.reduce((sum, f) => sum + f.data.length, 0);
  const size = PREFIX_BYTES + headerBytes.length + frameTotal + DIGEST_BYTES;
  if (size > TEMPLATE_LIMITS.maxTemplateBytes) {
    throw new TemplateError(`ocupa ${size} bytes y el máximo es ${TEMPLATE_LIMITS.maxTemplateBytes}`);
  }
  const out = new Uint8Array(size);
  out.set(TEMPLATE_MAGIC, 0);
  out[4] = TEMPLATE_VERSION;
  out[5] = TEMPLATE_KINDS[input.kind];
  new DataView(out.buffer).setUint32(6, headerBytes.length);
  out.set(headerBytes, PREFIX_BYTES);
  let offset = PREFIX_BYTES + headerBytes.length;
  for (const frame of input.frames) {
    out.set(frame.data, offset);
    offset += frame.data.length;
  }
  out.set(await sha256(out.subarray(0, offset)), offset);
  return encodeBase64url(out);
}
