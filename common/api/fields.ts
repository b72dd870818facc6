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
