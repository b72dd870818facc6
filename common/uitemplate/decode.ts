import { MAX_TEMPLATE_CHARS, TEMPLATE_LIMITS } from '../limits.js';
import { decodeBase64url } from './base64url.js';
import {
  DIGEST_BYTES,
  PREFIX_BYTES,
  TEMPLATE_KINDS,
  TEMPLATE_MAGIC,
  TEMPLATE_VERSION,
  TemplateError,
  sha256,
  templateHeaderSchema,
  toHex,
  type DecodedTemplate,
  type TemplateFrame,
  type TemplateKind,
} from './format.js';
import { sniffImage } from './image-sniff.js';

/**
 * Strict, bounded decoding: every check runs before anything proportional to the claimed
 * sizes is allocated, and every failure is a TemplateError whose reason names the fault.
 */
export async function decodeTemplate(text: unknown, expectedKind?: TemplateKind): Promise<DecodedTemplate> {
  if (typeof text !== 'string') throw new TemplateError('debe ser un texto base64url');
  if (text.length === 0) throw new TemplateError('está vacío');
  if (text.length > MAX_TEMPLATE_CHARS) {
    throw new TemplateError(`mide ${text.length} caracteres y el máximo es ${MAX_TEMPLATE_CHARS}`);
  }
  const decoded = decodeBase64url(text);
  if (!(decoded instanceof Uint8Array)) {
    throw new TemplateError(`${decoded.reason} (posición ${decoded.badIndex})`);
  }
  const bytes = decoded;
  if (bytes.length < PREFIX_BYTES + DIGEST_BYTES + 2) throw new TemplateError('es demasiado corto');
  if (!TEMPLATE_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new TemplateError('no es un UITemplate de Enrolla (firma desconocida)');
  }
  const version = bytes[4]!;
  if (version !== TEMPLATE_VERSION) {
    throw new TemplateError(`versión de formato ${version} no soportada (se admite ${TEMPLATE_VERSION})`);
  }
  const kind = kindOf(bytes[5]!);
  if (!kind) throw new TemplateError(`tipo de template desconocido (${bytes[5]})`);
  if (expectedKind && kind !== expectedKind) {
    throw new TemplateError(`se esperaba un template de ${kindName(expectedKind)} y llegó uno de ${kindName(kind)}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(6);
  const bodyEnd = bytes.length - DIGEST_BYTES;
  if (headerLength === 0 || headerLength > TEMPLATE_LIMITS.maxHeaderBytes || PREFIX_BYTES + headerLength > bodyEnd) {
    throw new TemplateError(`longitud de cabecera inválida (${headerLength})`);
  }
  const digest = await sha256(bytes.subarray(0, bodyEnd));
  if (!digest.every((b, i) => bytes[bodyEnd + i] === b)) {
    throw new TemplateError('el resumen SHA-256 no coincide (template alterado o truncado)');
  }

  let headerJson: unknown;
  try {
    headerJson = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PREFIX_BYTES, PREFIX_BYTES + headerLength)),
    );
  } catch {
    throw new TemplateError('la cabecera no es JSON UTF-8 válido');
  }
  const parsed = templateHeaderSchema.safeParse(headerJson);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TemplateError(`cabecera: campo '${issue.path.join('.') || '(raíz)'}' ${issue.message}`);
  }
  const header = parsed.data;
  const maxFrames = kind === 'face' ? TEMPLATE_LIMITS.maxFaceFrames : TEMPLATE_LIMITS.maxDocumentFrames;
  if (header.frames.length > maxFrames) {
    throw new TemplateError(
      `lleva ${header.frames.length} imágenes y un template de ${kindName(kind)} admite hasta ${maxFrames}`,
    );
  }
  const declared = header.frames.reduce((sum, f) => sum + f.bytes, 0);
  if (PREFIX_BYTES + headerLength + declared !== bodyEnd) {
    throw new TemplateError('las longitudes de las imágenes no coinciden con el contenido');
  }
  if (kind === 'document') checkSides(header.frames.map((f) => f.side));

  const frames: TemplateFrame[] = [];
  let offset = PREFIX_BYTES + headerLength;
  header.frames.forEach((frame, index) => {
    const data = bytes.subarray(offset, offset + frame.bytes);
    offset += frame.bytes;
    const where = `imagen ${index + 1}`;
    const sniffed = sniffImage(data);
    if ('error' in sniffed) throw new TemplateError(`${where}: ${sniffed.error}`);
    if (sniffed.type !== frame.type) throw new TemplateError(`${where}: declara ${frame.type} pero contiene ${sniffed.type}`);
    if (sniffed.width !== frame.width || sniffed.height !== frame.height) {
      throw new TemplateError(`${where}: declara ${frame.width}x${frame.height} pero mide ${sniffed.width}x${sniffed.height}`);
    }
    const { maxFrameSide, minFrameSide, maxFramePixels } = TEMPLATE_LIMITS;
    if (sniffed.width > maxFrameSide || sniffed.height > maxFrameSide || sniffed.width * sniffed.height > maxFramePixels) {
      throw new TemplateError(
        `${where}: ${sniffed.width}x${sniffed.height} supera el máximo (${maxFrameSide} px por lado, ${maxFramePixels} píxeles)`,
      );
    }
    if (sniffed.width < minFrameSide || sniffed.height < minFrameSide) {
      throw new TemplateError(
        `${where}: ${sniffed.width}x${sniffed.height} es menor que el mínimo de ${minFrameSide} px por lado`,
      );
    }
    frames.push({ ...frame, data });
  });

  return {
    kind,
    version,
    fechaCreacionTemplate: header.fechaCreacionTemplate,
    device: header.device,
    settings: header.settings ?? {},
    frames,
    digest: toHex(digest),
  };
}

function kindOf(byte: number): TemplateKind | undefined {
  return (Object.keys(TEMPLATE_KINDS) as TemplateKind[]).find((k) => TEMPLATE_KINDS[k] === byte);
}

function kindName(kind: TemplateKind): string {
  return kind === 'face' ? 'rostro' : 'documento';
}

function checkSides(sides: ('front' | 'back' | undefined)[]): void {
  const named = sides.filter((s) => s !== undefined);
  if (new Set(named).size !== named.length) throw new TemplateError('las imágenes del documento repiten el mismo lado');
}
