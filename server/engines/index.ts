// The engines' entry point: the face and document engines as the station runs them (worker pools),
// what their answers hold, the face analysis pieces and the document parsers the operations and
// benchmarks use. The document readers, which load OCR and barcode libraries, have their own:
// engines/document/index.ts.
export { CANONICAL_WIDTH } from './document/card/locate-card.js';
export type { DateParts } from './document/dates.js';
export { DocumentEngine } from './document/document-engine.js';
export { DNI_2012_BACK_FINGERPRINT } from './document/layout/dni-layout.js';
export { mrzNamesEquivalent } from './document/mrz/transliterate.js';
export type { Td1Result } from './document/mrz/td1-parser.js';
export { cuilCheckDigit, formatCuil } from './document/pdf417/cuil.js';
export type { DniPayload, UnrecognisedPayload } from './document/pdf417/dni-payload.js';
export type { SideReading } from './document/read-card-side.js';
export { foldText, type DniTextField, type DniTextFields } from './document/text/dni-text-fields.js';
export {
  digitsOf,
  parseDocumentNumber,
  parseFreeText,
  parseName,
  parseOrder,
  parsePlaceOfBirth,
  parsePrintedDate,
  parseSequence,
  parseSex,
} from './document/text/dni-text-values.js';
export { FULL_ANALYSIS, MATCHING_ANALYSIS } from './face/analyze-options.js';
export { attributeCues } from './face/analysis/cues.js';
export {
  innerFace,
  lumaSquare,
  powerSpectrum,
  quantile,
  radiusOf,
  saturationOf,
  stillCues,
  type Rgb,
} from './face/analysis/still-cues.js';
export { expressionGeometry } from './face/analysis/expression-geometry.js';
export { chooseMajorFace, DEFAULT_MIN_FACE_SCORE, faceCandidates, largestFace } from './face/analysis/major-face.js';
export { INNER_LINE_MIN } from './face/analysis/presentation-cues.js';
export { assessQuality, type QualityReport } from './face/analysis/quality.js';
export { IDENTIFICATION_CENTRED_IMPOSTOR_MODEL, IDENTIFICATION_IMPOSTOR_MODEL, IMPOSTOR_MODEL } from './face/calibration-data.js';
export { FaceEngine } from './face/face-engine.js';
export { EMBEDDING_DIM, FACE_MODEL_ID } from './face/face-model.js';
export { fuseDescriptors, IDENTIFICATION_DIM, identificationView } from './face/fused-descriptor.js';
export type { AnalyzeOptions, Box, DetectedFace, FrameAnalysis, MajorFace, Point } from './face/types.js';
export { defaultModelsDir } from './models-dir.js';
export { EngineBusyError, FrameDecodeError } from './worker-pool.js';
