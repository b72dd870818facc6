import { z } from 'zod';
import { MAX_IMAGE_BASE64_CHARS, MAX_TEMPLATE_CHARS } from '../limits.js';
import { SCOPES } from '../scopes.js';

/** Field building blocks shared by the request and response schemas. */
export const templateField = z
  .string()
  .min(1)
  .max(MAX_TEMPLATE_CHARS)
  .meta({ description: 'UITemplate (base64url, docs/uitemplate.md).' });

export const idPersonaField = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\p{C}\s](?:[^\p{C}]*[^\p{C}\s])?$/u, 'sin caracteres de control ni espacios al inicio o al final')
  .meta({ description: 'Identificador de la persona (por ejemplo su número de DNI).' });

export const txIdField = z
  .string()
  .meta({ description: 'Identificador de la transacción, también en la cabecera X-Transaction-Id.' });

/** Calibrated match confidence, 0-100 (docs/scores.md). */
export const thresholdField = z.number().min(0).max(100);

export const imageBase64Field = z
  .string()
  .min(1)
  .max(MAX_IMAGE_BASE64_CHARS)
  .meta({ description: 'Foto JPEG o PNG en base64 (estándar o url-safe, sin prefijo data:).' });

export const scopeField = z.enum(SCOPES);

/** The vendor's `auditToken`: the integrator's own reference for the request, kept in the audit log. */
export const auditTokenField = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^\p{C}]+$/u, 'sin caracteres de control')
  .meta({
    description:
      'Referencia del cliente para esta solicitud (un número de caso, de caja): queda en el registro de auditoría junto al token que llamó.',
  });

/**
 * The vendor's `exception`: true when the station could not process the input to answer the
 * question (no face, several faces, different people, an unreadable image or card), false for every
 * answer given on processed input (verified or not, found or not, a quality gate, an attack).
 */
export const exceptionField = z.boolean().meta({
  description:
    'true si la entrada no se pudo procesar para responder (sin rostro, varios rostros, personas distintas, imagen o documento ilegible); false en toda respuesta sobre una entrada procesada, aunque sea negativa.',
});

export const isoDateTimeField = z.string().meta({ description: 'Fecha y hora ISO 8601 UTC con milisegundos.' });

export const pointSchema = z.object({
  confidence: z.number(),
  num: z.number(),
  x: z.number(),
  y: z.number(),
});

export const regionSchema = z.object({
  confidence: z.number(),
  height: z.number(),
  width: z.number(),
  x: z.number(),
  y: z.number(),
});
