// The document readers' entry point: each step of reading a card, as the document worker runs them
// and the benchmarks measure them one by one (they load tesseract and the barcode readers).
export { CANONICAL_HEIGHT, CANONICAL_WIDTH, locateCard } from './card/locate-card.js';
export { MrzReader } from './mrz/read-mrz.js';
export { decodePdf417 } from './pdf417/decode-pdf417.js';
export { createLocalWorker } from './ocr/tesseract-worker.js';
export { CardSideReader } from './read-card-side.js';
export { type DniTextField, readDniFields } from './text/dni-text-fields.js';
export { TextLineDetector } from './text/detect-text-lines.js';
export type { CardImage } from './text/read-card-text.js';
export { groupWords, type TextBox, type TextWord } from './text/text-lines.js';
