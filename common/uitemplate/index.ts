export { encodeTemplate, type EncodeInput, type FrameInput } from './encode.js';
export { decodeTemplate } from './decode.js';
export { TemplateError, type DecodedTemplate, type TemplateFrame, type TemplateKind } from './format.js';
export { sniffImage, type SniffedImage } from './image-sniff.js';
export { encodeBase64url, decodeBase64url } from './base64url.js';
