/**
 * Hard bounds shared by the encoder, the decoder and the HTTP layer.
 * docs/uitemplate.md explains the choice of each number.
 */
export const TEMPLATE_LIMITS = {
  /** Decoded bytes of one whole template. */
  maxTemplateBytes: 12 * 1024 * 1024,
  /** Bytes of one embedded image. */
  maxFrameBytes: 6 * 1024 * 1024,
  /** Bytes of the JSON header. */
  maxHeaderBytes: 16 * 1024,
  /** Pixels per side and in total, checked from the image header before any decoding. */
  maxFrameSide: 8192,
  maxFramePixels: 25_000_000,
  minFrameSide: 16,
  maxFaceFrames: 5,
  maxDocumentFrames: 2,
} as const;

/** Base64url characters needed for maxTemplateBytes. */
export const MAX_TEMPLATE_CHARS = Math.ceil((TEMPLATE_LIMITS.maxTemplateBytes * 4) / 3);

/** A request body may hold one template plus one photo plus small fields. */
export const MAX_BODY_BYTES = MAX_TEMPLATE_CHARS + 9 * 1024 * 1024;

/** A photo sent beside a template (verificar-spoof-rostro `image`), as base64. */
export const MAX_IMAGE_BASE64_CHARS = Math.ceil((TEMPLATE_LIMITS.maxFrameBytes * 4) / 3) + 4;
