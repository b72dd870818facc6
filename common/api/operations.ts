import type { z } from 'zod';
import { auditTokenField, exceptionField } from './fields.js';
import type { Scope } from '../scopes.js';
import type { TemplateKind } from '../uitemplate/format.js';
import * as admin from './admin-schemas.js';
import * as doc from './document-schemas.js';
import * as face from './face-schemas.js';

/**
 * The catalogue of operations: one entry per path. The server routes from it, the console
 * calls through it and the OpenAPI document is generated from it, so they cannot disagree.
 */
export interface OperationSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  id: string;
  path: string;
  scope: Scope;
  tag: 'Rostro' | 'Documento' | 'Galería' | 'Administración';
  summary: string;
  request: Req;
  response: Res;
  /** Request fields that hold UITemplates, with the kind each must be; decoded before the handler runs. */
  templates?: Readonly<Record<string, TemplateKind>>;
}

/**
 * Every request may carry the vendor's `auditToken`, and every answer carries its `exception`
 * (fields.ts): added here so no operation can leave them out.
 */
function op<
  S extends z.ZodRawShape,
  C extends z.core.$ZodObjectConfig,
  RS extends z.ZodRawShape,
  RC extends z.core.$ZodObjectConfig,
>(spec: OperationSpec<z.ZodObject<S, C>, z.ZodObject<RS, RC>>) {
  return {
    ...spec,
    request: spec.request.extend({ auditToken: auditTokenField.optional() }),
    response: spec.response.extend({ exception: exceptionField }),
  };
}

export const OPERATIONS = {
  enroll: op({
    id: 'enroll',
    path: '/biometria/enroll-UI',
    scope: 'enroll',
    tag: 'Rostro',
    summary: 'Enrola a una persona a partir de un UITemplate de rostro.',
    request: face.enrollRequestSchema,
    response: face.enrollResponseSchema,
    templates: { template: 'face' },
  }),
  verify: op({
    id: 'verify',
    path: '/biometria/verificar-UI',
    scope: 'verify',
    tag: 'Rostro',
    summary: 'Verifica (1:1) un UITemplate contra las muestras enroladas de idPersona.',
    request: face.verifyRequestSchema,
    response: face.verifyResponseSchema,
    templates: { template: 'face' },
  }),
  identify: op({
    id: 'identify',
    path: '/biometria/identificar-UI',
    scope: 'identify',
    tag: 'Rostro',
    summary: 'Identifica (1:N) a la persona del UITemplate en la galería.',
    request: face.identifyRequestSchema,
    response: face.identifyResponseSchema,
    templates: { template: 'face' },
  }),
  extractFace: op({
    id: 'extractFace',
    path: '/biometria/extraer-datos-rostro-UI',
    scope: 'extract',
    tag: 'Rostro',
    summary: 'Extrae la imagen, el template y las propiedades del rostro de un UITemplate.',
    request: face.extractFaceRequestSchema,
    response: face.extractFaceResponseSchema,
    templates: { template: 'face' },
  }),
  spoof: op({
    id: 'spoof',
    path: '/biometria/verificar-spoof-rostro',
    scope: 'spoof',
    tag: 'Rostro',
    summary: 'Detecta ataques de presentación (foto, pantalla) en un UITemplate y, con `image`, si muestra a la misma persona.',
    request: face.spoofRequestSchema,
    response: face.spoofResponseSchema,
    templates: { template: 'face' },
  }),
  extractDni: op({
    id: 'extractDni',
    path: '/biometria/extraer-datos-dni-UI',
    scope: 'document',
    tag: 'Documento',
    summary: 'Lee un DNI argentino (frente y dorso) de un UITemplate de documento: PDF417, MRZ y OCR.',
    request: doc.extractDniRequestSchema,
    response: doc.extractDniResponseSchema,
    templates: { template: 'document' },
  }),
  matchDniFace: op({
    id: 'matchDniFace',
    path: '/biometria/verificar-rostro-dni-UI',
    scope: 'document',
    tag: 'Documento',
    summary: 'Compara la foto del DNI con el rostro de un UITemplate de rostro.',
    request: doc.matchDniFaceRequestSchema,
    response: doc.matchDniFaceResponseSchema,
    templates: { documentTemplate: 'document', template: 'face' },
  }),
  listPersons: op({
    id: 'listPersons',
    path: '/biometria/listar-personas',
    scope: 'enroll',
    tag: 'Galería',
    summary: 'Lista las personas enroladas (paginado, con filtro por prefijo).',
    request: admin.listPersonsRequestSchema,
    response: admin.listPersonsResponseSchema,
  }),
  getPerson: op({
    id: 'getPerson',
    path: '/biometria/obtener-persona',
    scope: 'enroll',
    tag: 'Galería',
    summary: 'Devuelve una persona y sus muestras (sin los vectores biométricos).',
    request: admin.personRequestSchema,
    response: admin.getPersonResponseSchema,
  }),
  deletePerson: op({
    id: 'deletePerson',
    path: '/biometria/eliminar-persona',
    scope: 'enroll',
    tag: 'Galería',
    summary: 'Elimina a una persona con todas sus muestras biométricas.',
    request: admin.personRequestSchema,
    response: admin.deletePersonResponseSchema,
  }),
  createToken: op({
    id: 'createToken',
    path: '/biometria/admin/crear-token',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Crea un token de API; el token se muestra una sola vez.',
    request: admin.createTokenRequestSchema,
    response: admin.createTokenResponseSchema,
  }),
  listTokens: op({
    id: 'listTokens',
    path: '/biometria/admin/listar-tokens',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Lista los tokens de API (nunca su valor).',
    request: admin.stationStatusRequestSchema,
    response: admin.listTokensResponseSchema,
  }),
  revokeToken: op({
    id: 'revokeToken',
    path: '/biometria/admin/revocar-token',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Revoca un token de API.',
    request: admin.revokeTokenRequestSchema,
    response: admin.revokeTokenResponseSchema,
  }),
  listAudit: op({
    id: 'listAudit',
    path: '/biometria/admin/listar-auditoria',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Registro de auditoría: quién hizo qué y cuándo, sin datos biométricos.',
    request: admin.listAuditRequestSchema,
    response: admin.listAuditResponseSchema,
  }),
  stationStatus: op({
    id: 'stationStatus',
    path: '/biometria/admin/estado-estacion',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Estado de la estación: versión, motores, galería y huella del certificado TLS.',
    request: admin.stationStatusRequestSchema,
    response: admin.stationStatusResponseSchema,
  }),
  createBackup: op({
    id: 'createBackup',
    path: '/biometria/admin/crear-respaldo',
    scope: 'admin',
    tag: 'Administración',
    summary:
      'Copia la base de la estación (muestras cifradas, tokens, auditoría) en su carpeta de respaldos mientras sigue atendiendo.',
    request: admin.stationStatusRequestSchema,
    response: admin.createBackupResponseSchema,
  }),
  stationSettings: op({
    id: 'stationSettings',
    path: '/biometria/admin/ajustes-estacion',
    scope: 'admin',
    tag: 'Administración',
    summary: 'Ajustes vigentes de la estación: exposición en la red y umbrales por defecto (solo lectura).',
    request: admin.stationStatusRequestSchema,
    response: admin.stationSettingsResponseSchema,
  }),
} as const;

export type OperationId = keyof typeof OPERATIONS;
export type RequestOf<K extends OperationId> = z.input<(typeof OPERATIONS)[K]['request']>;
export type ParsedRequestOf<K extends OperationId> = z.output<(typeof OPERATIONS)[K]['request']>;
export type ResponseOf<K extends OperationId> = z.infer<(typeof OPERATIONS)[K]['response']>;

/** Paths that answer without a token: liveness of the process only, and the API description. */
export const PUBLIC_PATHS = { health: '/salud', openapi: '/openapi.json', docs: '/docs' } as const;
