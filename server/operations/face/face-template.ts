import { decodeBase64url, encodeBase64url } from '../../../common/uitemplate/base64url.js';

/**
 * `face.template` of an extraction: the face's biometric template as an opaque string,
 * base64url of "EFT1" | model id length:u8 | model id | dim:u16be | float32le x dim.
 * It carries the model id so it is only ever compared with embeddings of the same model.
 */
const MAGIC = [0x45, 0x46, 0x54, 0x31];

export function encodeFaceTemplate(modelId: string, embedding: Float32Array): string {
  const id = new TextEncoder().encode(modelId);
  const out = new Uint8Array(4 + 1 + id.length + 2 + embedding.length * 4);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  out[4] = id.length;
  out.set(id, 5);
  view.setUint16(5 + id.length, embedding.length);
  embedding.forEach((v, i) => view.setFloat32(7 + id.length + i * 4, v, true));
  return encodeBase64url(out);
}

export function decodeFaceTemplate(text: string): { modelId: string; embedding: Float32Array } | null {
  const bytes = decodeBase64url(text);
  if (!(bytes instanceof Uint8Array) || bytes.length < 8 || !MAGIC.every((b, i) => bytes[i] === b)) return null;
  const idLength = bytes[4]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 7 + idLength) return null;
  const dim = view.getUint16(5 + idLength);
  if (bytes.length !== 7 + idLength + dim * 4) return null;
  const embedding = new Float32Array(dim);
  for (let i = 0; i < dim; i++) embedding[i] = view.getFloat32(7 + idLength + i * 4, true);
  return { modelId: new TextDecoder().decode(bytes.subarray(5, 5 + idLength)), embedding };
}
