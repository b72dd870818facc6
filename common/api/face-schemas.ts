import { z } from 'zod';
import {
  idPersonaField,
  imageBase64Field,
  isoDateTimeField,
  pointSchema,
  regionSchema,
  templateField,
  thresholdField,
  txIdField,
} from './fields.js';

/** The vendor client's Gender values (vendor-notes.md). */
export const GENDER_TYPES = ['MALE', 'FEMALE', 'NOT_DETECTED', 'UNSPECIFIED'] as const;

/** Ranges and defaults are the vendor test console's (shared spec, vendor-notes.md). */
export const facePoseSensibilitySchema = z.strictObject({
  lookingDownwardsPitchAngle: z.number().min(-30).max(-5).default(-20),
  lookingFront: z.number().min(1).max(20).default(8),
  lookingLeftYawAngle: z.number().min(-60).max(-10).default(-20),
  lookingRightYawAngle: z.number().min(10).max(60).default(20),
  lookingUpwardsPitchAngle: z.number().min(5).max(25).default(10),
});

export const extractParametersSchema = z.strictObject({
  blinkSensibility: z.number().min(0.1).max(0.7).default(0.3),
  detectAge: z.boolean().default(true),
  detectEmotion: z.boolean().default(true),
  detectExpression: z.boolean().default(true),
  detectGender: z.boolean().default(true),
  detectOnlyMajorFace: z.boolean().default(true),
  detectTraitsAndActions: z.boolean().default(true),
  facePoseSensibility: facePoseSensibilitySchema.default(facePoseSensibilitySchema.parse({})),
  maxCLAHE: z.number().min(5).max(15).default(10),
  maxRoll: z.number().min(0).max(180).default(90),
  maxYaw: z.number().min(0).max(90).default(90),
  minCLAHE: z.number().min(0).max(5).default(4),
  minConfidence: z.number().min(0).max(100).default(80),
  minIOD: z.number().min(8).max(1024).default(30),
  minQuality: z.number().min(0).max(100).default(10),
  scaleH: z.number().min(0).max(2).default(0),
  thumbnailWidth: z.number().int().min(24).max(512).default(128),
  useCLAHE: z.boolean().default(true),
  useCache: z.boolean().default(true),
  videoFramesSeq: z.number().int().min(1).max(5).default(1),
});

export const extractFaceRequestSchema = z.strictObject({
  template: templateField,
  parametros: extractParametersSchema.default(extractParametersSchema.parse({})),
});

export const enrollRequestSchema = z.strictObject({
  idPersona: idPersonaField,
  template: templateField,
  parametros: z
    .strictObject({
      /** Search the gallery for the same face under another idPersona before enrolling. */
      duplicateSearch: z.boolean().default(true),
      duplicateThreshold: thresholdField.optional(),
      /** For an existing idPersona: replace its samples instead of adding to them. */
      replaceSamples: z.boolean().default(false),
    })
    .default({ duplicateSearch: true, replaceSamples: false }),
});

export const verifyRequestSchema = z.strictObject({
  idPersona: idPersonaField,
  template: templateField,
  parametros: z.strictObject({ threshold: thresholdField.optional() }).default({}),
});

export const identifyRequestSchema = z.strictObject({
  template: templateField,
  parametros: z
    .strictObject({
      maxResults: z.number().int().min(1).max(100).default(5),
      threshold: thresholdField.optional(),
      minQuality: z.number().min(0).max(100).optional().meta({
        description:
          'Calidad 0-100 mínima de la sonda: por debajo se responde LOW_QUALITY sin buscar (una sonda pobre rara vez alcanza el umbral 1:N). Por defecto, el de la estación (matching.identifyMinQuality); 0 la acepta toda.',
      }),
      minIOD: z.number().min(0).max(1024).optional().meta({
        description:
          'Distancia mínima entre ojos de la sonda, en píxeles. Por defecto, la de la estación (matching.identifyMinIod).',
      }),
    })
    .default({ maxResults: 5 }),
});

/**
 * What a presentation-attack check does with one usable image: a still shows neither motion nor
 * blinks, so by default the station does not certify it as a live person (docs/face-engine.md).
 */
export const SINGLE_FRAME_POLICIES = ['refuse', 'judge'] as const;
export type SingleFramePolicy = (typeof SINGLE_FRAME_POLICIES)[number];

export const spoofRequestSchema = z.strictObject({
  template: templateField,
  image: imageBase64Field.optional(),
  parametros: z
    .strictObject({
      threshold: thresholdField.optional(),
      extractFace: z.boolean().default(true),
      singleFrame: z.enum(SINGLE_FRAME_POLICIES).optional().meta({
        description:
          "Con una sola imagen usable: 'refuse' no certifica presencia real (TEMPLATE_WITHOUT_VIDEO, salvo un ataque visible en ella); 'judge' decide con lo que muestra esa imagen. Por defecto, el de la estación (matching.spoofSingleFrame).",
      }),
    })
    .default({ extractFace: true }),
});

/** Why an outcome other than success happened, in Spanish, naming the gate and the values. */
const motivoField = z
  .string()
  .optional()
  .meta({ description: 'Detalle del resultado cuando no es exitoso: qué control falló y con qué valores.' });

export const ENROLL_STATUSES = [
  'SUCCESS',
  'DUPLICATED_TEMPLATE',
  'DUPLICATED_SUBJECT_ID',
  'BAD_TEMPLATE',
  'INTRATEMPLATE_FACE_MISMATCH',
  'FACE_NOT_DETECTED',
  'TEMPLATE_MULTIPLE_FACES',
  'LOW_QUALITY',
] as const;

export const enrollResponseSchema = z.object({
  status: z.enum(ENROLL_STATUSES),
  txId: txIdField,
  idPersona: z.string(),
  duplicatedIdPersona: z.string().optional(),
  /** Samples the person has after this enrollment. */
  samples: z.number().int().optional(),
  quality: z.number().optional(),
  motivo: motivoField,
});

const matchFields = {
  score: z.number().meta({ description: 'Similitud cruda del modelo (coseno).' }),
  confidence: z.number().meta({ description: 'Confianza calibrada 0-100.' }),
  faP: z.number().meta({ description: 'Probabilidad de falsa aceptación a este puntaje.' }),
};

export const verifyResponseSchema = z.object({
  status: z.enum([
    'CHECK_CONFIDENCE',
    'NOT_VERIFIED',
    'INEXISTENT',
    'WITHOUT_TEMPLATE',
    'BAD_TEMPLATE',
    'INTRATEMPLATE_FACE_MISMATCH',
    'FACE_NOT_DETECTED',
    'TEMPLATE_MULTIPLE_FACES',
  ]),
  txId: txIdField,
  idPersona: z.string(),
  threshold: z.number().optional(),
  score: matchFields.score.optional(),
  confidence: matchFields.confidence.optional(),
  faP: matchFields.faP.optional(),
  motivo: motivoField,
});

export const identifyResponseSchema = z.object({
  status: z.enum([
    'IDENTIFY_OK',
    'NOT_IDENTIFIED',
    'WITHOUT_TEMPLATE',
    'BAD_TEMPLATE',
    'INTRATEMPLATE_FACE_MISMATCH',
    'FACE_NOT_DETECTED',
    'TEMPLATE_MULTIPLE_FACES',
    'LOW_QUALITY',
  ]),
  txId: txIdField,
  threshold: z.number().optional(),
  /** The probe's quality score when it is refused (LOW_QUALITY). */
  quality: z.number().optional(),
  idPersona: z
    .string()
    .optional()
    .meta({ description: 'Con IDENTIFY_OK: el mejor candidato (el primero de candidates), como el subjectId del proveedor.' }),
  score: matchFields.score.optional(),
  confidence: matchFields.confidence.optional(),
  faP: matchFields.faP.optional(),
  candidates: z.array(z.object({ idPersona: z.string(), ...matchFields })),
  motivo: motivoField,
});

export const uiTemplateMetadataSchema = z.object({ fechaCreacionTemplate: isoDateTimeField });

export const facePropertiesSchema = z.object({
  age: z.number().nullable(),
  clahe: z.number(),
  confidence: z.number(),
  emotion: z
    .object({
      anger: z.number(),
      disgust: z.number(),
      fear: z.number(),
      happiness: z.number(),
      neutral: z.number(),
      sadness: z.number(),
      surprise: z.number(),
    })
    .nullable()
    .meta({
      description:
        'Emoción 0-100. happiness es la probabilidad de una sonrisa visible (50: tan probable como no; SMILE* desde 50); las otras seis se reparten el resto en las proporciones de la red de expresión, sin calibrar. null si no se pidió (detectEmotion) o la expresión es UNKNOWN.',
    }),
  expression: z
    .object({
      confidence: z.number(),
      type: z.enum(['EYES_AWAY', 'FROWNING', 'NEUTRAL', 'RAISED_BROWS', 'SMILE', 'SMILE_OPENED_JAW', 'SQUINT', 'UNKNOWN']),
      motivo: z.string().optional().meta({
        description:
          'Con UNKNOWN: por qué el rostro no permite leer la expresión ni la emoción (tamaño, giro, oscuridad, oclusión).',
      }),
    })
    .nullable(),
  gender: z
    .object({
      confidence: z.number(),
      type: z.enum(GENDER_TYPES).meta({
        description:
          'Los valores del modelo Gender del proveedor. NOT_DETECTED: la red no está tres a uno segura de ninguno de los dos (confidence es la probabilidad del más probable); UNSPECIFIED no se responde.',
      }),
    })
    .nullable(),
  leftEyePoint: pointSchema,
  rightEyePoint: pointSchema,
  nosePoint: pointSchema,
  leftEyeRegion: regionSchema,
  rightEyeRegion: regionSchema,
  noseRegion: regionSchema,
  position: z.object({
    height: z.number(),
    width: z.number(),
    x: z.number(),
    y: z.number(),
    pitch: z.number(),
    roll: z.number(),
    yaw: z.number(),
    points: z.array(pointSchema),
  }),
  quality: z.object({ score: z.number(), failed: z.array(z.string()) }).optional(),
  thumbnail: z.string(),
  traits: z
    .object({
      ambosOjosCerrados: z.boolean(),
      leftEyeClosed: z.boolean(),
      rightEyeClosed: z.boolean(),
      lookingDownward: z.boolean(),
      lookingFront: z.boolean(),
      lookingLeft: z.boolean(),
      lookingRight: z.boolean(),
      lookingUpward: z.boolean(),
      beard: z.number().nullable(),
      darkGlasses: z.number().nullable(),
      glasses: z.number().nullable(),
      hat: z.number().nullable(),
      mustache: z.number().nullable(),
      openMouth: z.number().nullable(),
      motivo: z.string().optional().meta({
        description:
          'Con los rasgos medidos en null: por qué el rostro no permite leerlos (tamaño, giro, oscuridad, oclusión). Los 0-100 valen 50 donde el rasgo es tan probable como no.',
      }),
    })
    .nullable(),
});

/** The vendor's states, plus one per quality gate so the operator knows what to fix. */
export const EXTRACT_STATUSES = [
  'OK',
  'BAD_ILLUMINATION',
  'FACE_NOT_DETECTED',
  'BAD_TEMPLATE',
  'TEMPLATE_MULTIPLE_FACES',
  'INTRATEMPLATE_FACE_MISMATCH',
  'FACE_TOO_SMALL',
  'BAD_POSE',
  'LOW_QUALITY',
] as const;

export const extractFaceResponseSchema = z.object({
  status: z.enum(EXTRACT_STATUSES),
  txId: txIdField,
  face: z.object({ image: z.string(), template: z.string() }).nullable(),
  faceImage: z.string().nullable(),
  properties: facePropertiesSchema.nullable(),
  uiTemplateMetadata: uiTemplateMetadataSchema,
  motivo: motivoField,
});

export const spoofResponseSchema = z.object({
  status: z.enum([
    'IS_SPOOF_CHECK_CONFIDENCE',
    'NO_SPOOF_CHECK_CONFIDENCE',
    'TEMPLATE_WITHOUT_VIDEO',
    'BAD_TEMPLATE',
    'INTRATEMPLATE_FACE_MISMATCH',
    'TEMPLATE_MULTIPLE_FACES',
    'WITHOUT_TEMPLATE',
    'WITHOUT_IMAGES',
    'IMAGE_WITHOUT_FACE',
    'FACE_NOT_DETECTED',
  ]),
  txId: txIdField,
  confidence: z.number().optional().meta({ description: 'Confianza 0-100 de que la captura es un ataque de presentación.' }),
  threshold: z.number().optional(),
  cues: z.record(z.string(), z.number()).optional().meta({ description: 'Indicios medidos, 0-100 (mayor = más sospechoso).' }),
  samePerson: z.object({ match: z.boolean(), ...matchFields }).optional(),
  motivo: motivoField,
  face: z.object({ image: z.string(), template: z.string() }).nullable().optional(),
  faceImage: z.string().nullable().optional(),
  properties: facePropertiesSchema.nullable().optional(),
  uiTemplateMetadata: uiTemplateMetadataSchema.optional(),
});

export type ExtractParameters = z.infer<typeof extractParametersSchema>;
export type ExtractFaceRequest = z.infer<typeof extractFaceRequestSchema>;
export type EnrollRequest = z.infer<typeof enrollRequestSchema>;
export type VerifyRequest = z.infer<typeof verifyRequestSchema>;
export type IdentifyRequest = z.infer<typeof identifyRequestSchema>;
export type SpoofRequest = z.infer<typeof spoofRequestSchema>;
