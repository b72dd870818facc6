import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { OperationId, OperationSpec, ParsedRequestOf } from '../../common/api/operations.js';
import { isException } from '../../common/api/exception.js';
import { MAX_BODY_BYTES } from '../../common/limits.js';
import { decodeTemplate, TemplateError, type DecodedTemplate } from '../../common/uitemplate/index.js';
import type { Logger } from '../log/index.js';
import type { AuditLog, TokenRecord } from '../storage/index.js';
import { ApiError, formatIssues } from '../domain/index.js';
import { HttpError } from './http-error.js';
import type { OperationHandler } from '../operations/index.js';
import type { Authenticator } from './authenticate.js';
import { sendSuccess } from './respond.js';

export interface OperationRouteDeps {
  authenticator: Authenticator;
  audit: AuditLog;
  /** Check each answer against its schema (tests), so the documentation cannot drift from behaviour. */
  validateResponses: boolean;
}

const jsonBody = express.json({ limit: MAX_BODY_BYTES, strict: true, type: () => true });

/**
 * The pipeline of one operation: method, authentication and scope, media type, body size and
 * JSON, schema, templates, then the handler; every refusal is an envelope with its status.
 */
export function operationRoute<K extends OperationId>(
  spec: OperationSpec,
  handler: OperationHandler<K> | undefined,
  deps: OperationRouteDeps,
): RequestHandler[] {
  const onlyPost: RequestHandler = (req, res, next) => {
    if (req.method === 'POST') return next();
    throw new HttpError('METHOD_NOT_ALLOWED', `El método ${req.method} no está permitido en ${spec.path}; use POST.`, {
      Allow: 'POST',
    });
  };
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!req.is('application/json')) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', "El cuerpo debe enviarse con 'Content-Type: application/json'.");
    }
    next();
  };
  const run = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const txId = res.locals.txId as string;
    const token = res.locals.token as TokenRecord;
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError('BAD_REQUEST', 'El cuerpo debe ser un objeto JSON.');
    }
    const parsed = spec.request.safeParse(body);
    if (!parsed.success) throw new ApiError('BAD_REQUEST', `Solicitud inválida: ${formatIssues(parsed.error.issues, body)}.`);
    const request = parsed.data as ParsedRequestOf<K>;
    res.locals.idPersona = (request as { idPersona?: string }).idPersona;
    res.locals.auditToken = (request as { auditToken?: string }).auditToken;

    const templates: Record<string, DecodedTemplate> = {};
    for (const [field, kind] of Object.entries(spec.templates ?? {})) {
      try {
        templates[field] = await decodeTemplate((request as Record<string, unknown>)[field], kind);
      } catch (error) {
        if (error instanceof TemplateError) {
          throw new ApiError('BAD_REQUEST', field === 'template' ? error.message : `${field}: ${error.message}`);
        }
        throw error;
      }
    }
    if (!handler) {
      throw new ApiError(
        'NOT_IMPLEMENTED',
        `La operación ${spec.path} no está disponible en esta estación: su motor no está instalado o está desactivado.`,
      );
    }
    const log = (res.locals.log as Logger).child({ operation: spec.id });
    const result = await handler({ txId, request, templates, token, log });
    const status = (result as { status?: string }).status;
    const data = { ...result, exception: isException(status), txId };
    if (deps.validateResponses) {
      const check = spec.response.safeParse(data);
      if (!check.success)
        return next(new Error(`Respuesta fuera de esquema en ${spec.id}: ${formatIssues(check.error.issues, data)}`));
    }
    res.locals.outcome = status ?? 'SUCCESS';
    sendSuccess(res, data);
  };
  const audit: RequestHandler = (_req, res, next) => {
    res.on('finish', () => {
      const token = res.locals.token as TokenRecord | undefined;
      if (!token) return; // unauthenticated attempts are logged, not audited (the table must not be fillable by strangers)
      try {
        deps.audit.appendAudit({
          at: new Date().toISOString(),
          txId: res.locals.txId as string,
          operation: spec.id,
          tokenName: token.name,
          idPersona: (res.locals.idPersona as string | undefined) ?? null,
          outcome: (res.locals.outcome as string | undefined) ?? `ERROR_${res.statusCode}`,
          httpStatus: res.statusCode,
          auditToken: (res.locals.auditToken as string | undefined) ?? null,
        });
      } catch (error) {
        (res.locals.log as Logger).error({ err: error }, 'no se pudo registrar la auditoría');
      }
    });
    next();
  };
  return [onlyPost, audit, deps.authenticator.require(spec.scope), requireJson, jsonBody, run];
}
