import { z } from 'zod';
import { idPersonaField, isoDateTimeField, scopeField, txIdField } from './fields.js';
import { SINGLE_FRAME_POLICIES } from './face-schemas.js';

/** Gallery and station management, beyond the contract, for the console and integrators. */
export const listPersonsRequestSchema = z.strictObject({
  filtro: z.string().max(128).optional().meta({ description: 'Prefijo de idPersona.' }),
  limit: z.number().int().min(1).max(500).default(50),
  offset: z.number().int().min(0).default(0),
});

export const personRequestSchema = z.strictObject({ idPersona: idPersonaField });

export const personSummarySchema = z.object({
  idPersona: z.string(),
  samples: z.number().int(),
  createdAt: isoDateTimeField,
  updatedAt: isoDateTimeField,
});

export const listPersonsResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  total: z.number().int(),
  persons: z.array(personSummarySchema),
});

export const getPersonResponseSchema = z.object({
  status: z.enum(['SUCCESS', 'INEXISTENT']),
  txId: txIdField,
  person: personSummarySchema
    .extend({
      sampleList: z.array(
        z.object({
          id: z.number().int(),
          modelId: z.string(),
          quality: z.number(),
          createdAt: isoDateTimeField,
          thumbnail: z.string().nullable().meta({ description: 'JPEG en base64.' }),
        }),
      ),
    })
    .nullable(),
});

export const deletePersonResponseSchema = z.object({
  status: z.enum(['SUCCESS', 'INEXISTENT']),
  txId: txIdField,
  idPersona: z.string(),
  samplesDeleted: z.number().int(),
});

export const tokenNameField = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'solo letras, números, espacio, punto, guion y guion bajo');

export const createTokenRequestSchema = z.strictObject({
  name: tokenNameField,
  scopes: z.array(scopeField).min(1).max(7),
});

export const tokenInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(scopeField),
  createdAt: isoDateTimeField,
  lastUsedAt: isoDateTimeField.nullable(),
  revokedAt: isoDateTimeField.nullable(),
});

export const createTokenResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  token: z.string().meta({ description: 'El token completo; se muestra solo esta vez.' }),
  info: tokenInfoSchema,
});

export const listTokensResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  tokens: z.array(tokenInfoSchema),
});

export const revokeTokenRequestSchema = z.strictObject({ id: z.string().min(1).max(64) });

export const revokeTokenResponseSchema = z.object({
  status: z.enum(['SUCCESS', 'INEXISTENT']),
  txId: txIdField,
});

export const listAuditRequestSchema = z.strictObject({
  limit: z.number().int().min(1).max(1000).default(100),
  beforeSeq: z.number().int().min(1).optional().meta({ description: 'Para paginar hacia atrás.' }),
});

export const auditEntrySchema = z.object({
  seq: z.number().int(),
  at: isoDateTimeField,
  txId: z.string(),
  operation: z.string(),
  tokenName: z.string().nullable(),
  idPersona: z.string().nullable(),
  outcome: z.string(),
  httpStatus: z.number().int(),
  auditToken: z.string().nullable().meta({ description: 'El auditToken que el cliente envió con la solicitud, si envió uno.' }),
});

export const listAuditResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  entries: z.array(auditEntrySchema),
});

export const stationStatusRequestSchema = z.strictObject({});

export const backupsStatusSchema = z
  .object({
    enabled: z.boolean(),
    last: z
      .object({
        at: isoDateTimeField,
        file: z.string().nullable().meta({ description: 'La copia escrita; null si falló.' }),
        persons: z.number().int().nullable(),
        error: z.string().nullable(),
      })
      .nullable()
      .meta({ description: 'El último respaldo programado desde que arrancó la estación.' }),
    nextDue: isoDateTimeField.nullable().meta({ description: 'Cuándo toca el próximo (null: sin respaldos programados).' }),
  })
  .meta({ description: 'Respaldos programados de la base de la estación (configuración `backups`).' });

export type BackupsStatus = z.infer<typeof backupsStatusSchema>;

export const createBackupResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  file: z.string().meta({ description: 'La copia escrita, en la carpeta de respaldos de la estación (`backups.dir`).' }),
  persons: z.number().int(),
  samples: z.number().int(),
});

export const stationStatusResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  version: z.string(),
  startedAt: isoDateTimeField,
  persons: z.number().int(),
  engines: z.record(z.string(), z.enum(['ready', 'loading', 'unavailable'])),
  tls: z.object({ enabled: z.boolean(), fingerprint256: z.string().nullable() }),
  backups: backupsStatusSchema,
});

/** What the console shows on its settings screen; changed through configuration (docs/configuration.md). */
export const stationSettingsResponseSchema = z.object({
  status: z.literal('SUCCESS'),
  txId: txIdField,
  network: z.object({
    host: z.string(),
    port: z.number().int(),
    lanExposed: z.boolean().meta({ description: 'Si la estación escucha en otras interfaces además de loopback.' }),
    tls: z.boolean(),
  }),
  matching: z.object({
    verifyFmr: z.number(),
    verifyThreshold: z.number().meta({ description: 'Confianza 0-100 mínima por defecto para verificar (1:1).' }),
    identifyFpir: z.number(),
    enrollMinQuality: z.number(),
    enrollMinIod: z.number(),
    identifyMinQuality: z.number(),
    identifyMinIod: z.number(),
    spoofThreshold: z.number(),
    spoofSingleFrame: z.enum(SINGLE_FRAME_POLICIES),
  }),
});

export type TokenInfo = z.infer<typeof tokenInfoSchema>;
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type PersonSummary = z.infer<typeof personSummarySchema>;
