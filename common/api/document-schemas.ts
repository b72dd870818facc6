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

export const SUGGESTED_ACTIONS = ['RESCAN', 'RESCAN_FRONT', 'RESCAN_BACK', 'RETRY', 'NONE'] as const;

export const extractDniResponseSchema = z.object({
  status: z.enum(DNI_STATUSES),
  suggestedAction: z.enum(SUGGESTED_ACTIONS),
  txId: txIdField,
  documentInfo: z.record(z.string(), z.unknown()).nullable(),
  mrz: z.record(z.string(), z.unknown()).nullable(),
  mrzDetected: z.boolean(),
  pdf417: z.record(z.string(), z.unknown()).nullable(),
  pdf417Detected: z.boolean(),
  frontImage: z.string().nullable(),
  backImage: z.string().nullable(),
  uiTemplateMetadata: uiTemplateMetadataSchema,
});

export const matchDniFaceResponseSchema = z.object({
  status: z.enum(['CHECK_CONFIDENCE', 'NOT_VERIFIED', 'FRONT_FACE_NOT_FOUND', 'FACE_NOT_DETECTED', 'BAD_TEMPLATE']),
  txId: txIdField,
  score: z.number().optional(),
  confidence: z.number().optional(),
  faP: z.number().optional(),
});
