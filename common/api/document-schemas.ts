import { z } from 'zod';
import { templateField, thresholdField, txIdField } from './fields.js';
import { uiTemplateMetadataSchema } from './face-schemas.js';

/** Argentine DNI reading (vendor-notes.md, "DNI result"); the engine lands with its own issue. */
export const dniParametersSchema = z.strictObject({
  extractFace: z.boolean().default(true),
  extractMRZ: z.boolean().default(true),
  extractPDF417: z.boolean().default(true),
  useCache: z.boolean().default(true),
});

export const extractDniRequestSchema = z.strictObject({
  template: templateField,
  parametros: dniParametersSchema.default(dniParametersSchema.parse({})),
});

export const matchDniFaceRequestSchema = z.strictObject({
  documentTemplate: templateField.meta({ description: 'UITemplate de documento (frente y dorso del DNI).' }),
  template: templateField.meta({ description: 'UITemplate de rostro de la persona presente.' }),
  parametros: z.strictObject({ threshold: thresholdField.optional() }).default({}),
});

export const DNI_STATUSES = [
  'OK',
  'EXCEPTION',
  'SPOOF',
  'FRONT_FACE_NOT_FOUND',
  'FRONT_FACE_BAD_ILLUMINATION',
  'NEITHER_MRZ_NOR_PDF417_DETECTED',
  'NOT_ARGENTINA_ID',
  'BAD_TEMPLATE',
] as const;

/** The vendor UI's actions; which side to rescan travels in `rescanSide`. */
export const SUGGESTED_ACTIONS = ['RESCAN', 'RETRY', 'NONE'] as const;
export type SuggestedAction = (typeof SUGGESTED_ACTIONS)[number];
export const RESCAN_SIDES = ['FRONT', 'BACK', 'BOTH'] as const;
export type RescanSide = (typeof RESCAN_SIDES)[number];

const datePartsSchema = z.object({ day: z.number().int(), month: z.number().int(), year: z.number().int() }).nullable();

export const DNI_SOURCES = ['PDF417', 'MRZ', 'OCR', 'NONE'] as const;

export const AGREEMENTS = ['AGREE', 'MISMATCH', 'SINGLE_SOURCE'] as const;

const fieldDetailSchema = z.object({
  source: z.enum(DNI_SOURCES).meta({ description: 'De dónde sale el valor: la fuente más confiable que lo leyó válido.' }),
  valid: z.boolean(),
  agreement: z.enum(AGREEMENTS).meta({
    description:
      'Si las fuentes que leyeron el campo coinciden (AGREE), dicen otra cosa (MISMATCH: el documento responde SPOOF) o lo leyó una sola (SINGLE_SOURCE).',
  }),
  confidence: z.number().meta({
    description:
      '0-100: 90 con una fuente válida (95 con dígito verificador), más cuando otra coincide; el texto solo impreso, lo que dice el OCR (nunca válido); 0 si las fuentes difieren.',
  }),
  motivo: z.string().optional(),
});

export const documentInfoSchema = z.object({
  surname: z.string().nullable(),
  givenNames: z.string().nullable(),
  documentNumber: z.string().nullable(),
  cuilNumber: z.string().nullable(),
  sex: z
    .enum(['MALE', 'FEMALE', 'UNSPECIFIED'])
    .nullable()
    .meta({ description: 'Los valores del proveedor: M, F y X (no binario) del DNI.' }),
  nationality: z.string().nullable(),
  issuingCountry: z.string().nullable(),
  dateOfBirth: datePartsSchema,
  issuingDate: datePartsSchema,
  expirationDate: datePartsSchema,
  address: z.string().nullable().meta({ description: 'Domicilio del dorso, por OCR.' }),
  addressConfidence: z.number().meta({ description: 'Confianza 0-100 del OCR del domicilio.' }),
  placeOfBirth: z.string().nullable().meta({ description: 'Lugar de nacimiento del dorso, por OCR.' }),
  placeOfBirthConfidence: z.number().meta({ description: 'Confianza 0-100 del OCR del lugar de nacimiento.' }),
  order: z.string().nullable().meta({ description: 'Número de trámite.' }),
  sequence: z.string().nullable().meta({ description: 'Ejemplar.' }),
  documentVersion: z.enum(['ARGENTINA_ID_V1', 'ARGENTINA_ID_V2']).nullable(),
  face: z.string().nullable().meta({ description: 'Foto del documento (JPEG en base64).' }),
  fingerPrint: z.string().nullable(),
  documentNumberCheckDigitValid: z.boolean().nullable(),
  dateOfBirthCheckDigitValid: z.boolean().nullable(),
  expirationDateCheckDigitValid: z.boolean().nullable(),
  compositeCheckDigitValid: z.boolean().nullable(),
  cuilCheckDigitValid: z.boolean().nullable(),
  fields: z.record(z.string(), fieldDetailSchema).meta({ description: 'Fuente, validez y coincidencia de cada campo.' }),
});

export const mrzResultSchema = z.object({
  lines: z.array(z.string()),
  documentCode: z.string(),
  issuingState: z.string(),
  documentNumber: z.string(),
  dateOfBirth: datePartsSchema,
  sex: z.string().nullable(),
  expirationDate: datePartsSchema,
  nationality: z.string(),
  surname: z.string(),
  givenNames: z.string(),
  namesTruncated: z.boolean(),
  checks: z.record(z.string(), z.object({ valid: z.boolean(), found: z.string(), expected: z.string().nullable() })),
  corrections: z.number().int(),
  problems: z.array(z.string()),
  valid: z.boolean(),
});

export const pdf417ResultSchema = z.object({
  raw: z.string(),
  layout: z.enum(['front-2012', 'back-2009']).nullable(),
  charset: z.string(),
  fields: z.record(z.string(), z.object({ value: z.unknown(), valid: z.boolean(), reason: z.string().optional() })),
  valid: z.boolean(),
  problems: z.array(z.string()),
  decoder: z.string(),
});

export const extractDniResponseSchema = z.object({
  status: z.enum(DNI_STATUSES),
  suggestedAction: z.enum(SUGGESTED_ACTIONS),
  rescanSide: z
    .enum(RESCAN_SIDES)
    .nullable()
    .meta({ description: 'Con suggestedAction RESCAN: el lado que hay que volver a capturar; null en los demás casos.' }),
  txId: txIdField,
  motivo: z.string().optional(),
  documentInfo: documentInfoSchema.nullable(),
  mrz: mrzResultSchema.nullable(),
  mrzDetected: z.boolean(),
  pdf417: pdf417ResultSchema.nullable(),
  pdf417Detected: z.boolean(),
  frontImage: z.string().nullable().meta({ description: 'Frente rectificado a 1011 x 638 (300 dpi), JPEG en base64.' }),
  backImage: z.string().nullable(),
  captureQuality: z
    .record(z.string(), z.object({ sharpness: z.number(), glare: z.number(), cardFound: z.boolean() }))
    .meta({ description: 'Nitidez y reflejos medidos en cada lado.' }),
  uiTemplateMetadata: uiTemplateMetadataSchema,
});

export const matchDniFaceResponseSchema = z.object({
  status: z.enum([
    'CHECK_CONFIDENCE',
    'NOT_VERIFIED',
    'FRONT_FACE_NOT_FOUND',
    'FACE_NOT_DETECTED',
    'TEMPLATE_MULTIPLE_FACES',
    'INTRATEMPLATE_FACE_MISMATCH',
  ]),
  txId: txIdField,
  threshold: z.number().optional(),
  score: z.number().optional(),
  confidence: z.number().optional(),
  faP: z.number().optional(),
  motivo: z.string().optional(),
});

export type DocumentInfo = z.infer<typeof documentInfoSchema>;
export type MrzResult = z.infer<typeof mrzResultSchema>;
export type Pdf417Result = z.infer<typeof pdf417ResultSchema>;
