import { z } from 'zod';
import { OPERATIONS, PUBLIC_PATHS } from '../../../common/api/operations.js';
import { MAX_BODY_BYTES } from '../../../common/limits.js';
import { STATION_VERSION } from '../../version.js';

type JsonObject = Record<string, unknown>;

const ERROR_RESPONSES: Record<string, string> = {
  '400':
    'Solicitud inválida: JSON mal formado, campo con tipo o rango incorrecto, o template inválido (la descripción nombra el campo).',
  '401': 'Falta el token, está mal formado, es desconocido o fue revocado.',
  '403': 'El token no tiene el alcance de la operación.',
  '405': 'Método distinto de POST.',
  '413': `El cuerpo supera ${MAX_BODY_BYTES} bytes.`,
  '415': 'El cuerpo no es application/json.',
  '429':
    'Sin un token válido, desde una dirección con demasiadas autenticaciones fallidas; ver Retry-After. Un token válido nunca se rechaza por su dirección.',
  '500': 'Error interno; la descripción da el txId.',
  '501': 'El motor de la operación no está instalado en esta estación.',
  '503': 'La estación está ocupada o su almacenamiento no está disponible.',
  '507': 'No queda espacio en disco; no se guardó nada.',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  delete out.$schema;
  return out;
}

function envelopeOf(data: JsonObject): JsonObject {
  return {
    type: 'object',
    required: ['success', 'error', 'data'],
    properties: {
      success: { const: true },
      error: { $ref: '#/components/schemas/ErrorDescriptor' },
      data,
    },
  };
}

/** OpenAPI 3.1, generated from the operation catalogue; docs/openapi.json is its committed copy. */
export function buildOpenApiDocument(): JsonObject {
  const paths: JsonObject = {};
  const errorRefs = Object.fromEntries(
    Object.keys(ERROR_RESPONSES).map((code) => [code, { $ref: `#/components/responses/Error${code}` }]),
  );
  for (const spec of Object.values(OPERATIONS)) {
    paths[spec.path] = {
      post: {
        operationId: spec.id,
        tags: [spec.tag],
        summary: spec.summary,
        description: `Alcance requerido: \`${spec.scope}\`.`,
        security: [{ bearerAuth: [] }],
        'x-scope': spec.scope,
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.request, 'input') } } },
        responses: {
          '200': {
            description: 'Resultado; `data.status` dice el resultado de negocio.',
            content: { 'application/json': { schema: envelopeOf(jsonSchema(spec.response, 'output')) } },
          },
          ...errorRefs,
        },
      },
    };
  }
  paths[PUBLIC_PATHS.health] = {
    get: {
      operationId: 'health',
      tags: ['Estación'],
      summary: 'El proceso está vivo (sin datos de la estación; sin token).',
      security: [],
      responses: {
        '200': {
          description: 'Vivo.',
          content: {
            'application/json': {
              schema: envelopeOf({ type: 'object', properties: { status: { const: 'SUCCESS' }, txId: { type: 'string' } } }),
            },
          },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Enrolla: API de la estación biométrica',
      version: STATION_VERSION,
      description:
        'Todas las operaciones son POST con JSON sobre HTTPS y responden el sobre {success, error{codigo, descripcion, tipo}, data}. ' +
        'error.codigo es 0 en éxito y el estado HTTP en error. Autenticación: Authorization: Bearer <token>.',
    },
    servers: [{ url: 'https://127.0.0.1:8443', description: 'Estación local (puerto por defecto)' }],
    security: [{ bearerAuth: [] }],
    tags: ['Rostro', 'Documento', 'Galería', 'Administración', 'Estación'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Token de API: enr_<id>_<secreto>.' } },
      schemas: {
        ErrorDescriptor: {
          type: 'object',
          required: ['codigo', 'descripcion', 'tipo'],
          properties: {
            codigo: { type: 'integer', description: '0 en éxito; en error, igual al estado HTTP.' },
            descripcion: { type: 'string', description: 'Descripción en español; nombra el campo o la causa.' },
            tipo: { type: 'string', enum: ['ERROR', 'NONE'] },
          },
        },
        FailureEnvelope: {
          type: 'object',
          required: ['success', 'error', 'data'],
          properties: {
            success: { const: false },
            error: { $ref: '#/components/schemas/ErrorDescriptor' },
            data: { type: 'null' },
          },
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([code, description]) => [
          `Error${code}`,
          { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/FailureEnvelope' } } } },
        ]),
      ),
    },
  };
}
