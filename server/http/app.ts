import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { OPERATIONS, PUBLIC_PATHS } from '../../common/api/operations.js';
import { MAX_BODY_BYTES } from '../../common/limits.js';
import type { StationConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { renderDocsPage } from './openapi/docs-page.js';
import { type AuditLog, StoreError } from '../storage/index.js';
import { FailedAuthThrottle, type TokenService } from '../auth/index.js';
import { ApiError } from '../domain/index.js';
import { createAuthenticator } from './authenticate.js';
import type { OperationHandlers } from '../operations/index.js';
import { operationRoute } from './operation-route.js';
import { crossOrigin, MODEL_ROUTE, modelFiles } from './model-files.js';
import { sendFailure, sendSuccess } from './respond.js';
import { securityHeaders } from './security-headers.js';

export interface AppDeps {
  config: StationConfig;
  audit: AuditLog;
  tokens: TokenService;
  logger: Logger;
  handlers: OperationHandlers;
  /** Built console files to serve at `/`, or null. */
  consoleDir: string | null;
  /** models/ folder: its browser-side guidance models are served at /modelos/, or null. */
  modelsDir?: string | null;
  validateResponses?: boolean;
}

/** The whole HTTP surface, built from its dependencies; the CLI, Electron and tests share it. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(deps.logger));
  app.use(securityHeaders({ tls: deps.config.tls.enabled }));

  app.get(PUBLIC_PATHS.health, (_req, res) => sendSuccess(res, { status: 'SUCCESS', txId: res.locals.txId }));
  const openapi = buildOpenApiDocument();
  app.get(PUBLIC_PATHS.openapi, (_req, res) => res.json(openapi));
  const docsPage = renderDocsPage(openapi);
  app.get(PUBLIC_PATHS.docs, (_req, res) => res.type('html').send(docsPage));

  const authenticator = createAuthenticator(
    deps.tokens,
    new FailedAuthThrottle(deps.config.auth.maxFailures, deps.config.auth.windowSeconds * 1000),
  );
  const routeDeps = { authenticator, audit: deps.audit, validateResponses: deps.validateResponses ?? false };
  for (const spec of Object.values(OPERATIONS)) {
    const handler = (deps.handlers as Record<string, never>)[spec.id];
    app.all(spec.path, ...operationRoute(spec, handler, routeDeps));
  }
  app.use('/biometria', (req) => {
    throw new ApiError('NOT_FOUND', `No existe la operación ${req.baseUrl}${req.path}. La lista está en ${PUBLIC_PATHS.docs}.`);
  });

  if (deps.modelsDir) app.use(MODEL_ROUTE, modelFiles(deps.modelsDir));
  if (deps.consoleDir && existsSync(path.join(deps.consoleDir, 'index.html'))) {
    const dir = deps.consoleDir;
    app.use('/embed', crossOrigin);
    app.use(express.static(dir, { index: 'index.html', fallthrough: true, maxAge: 0 }));
    app.get('/{*spa}', (_req, res) => res.sendFile(path.join(dir, 'index.html')));
  }
  app.use((req) => {
    throw new ApiError('NOT_FOUND', `No existe el recurso ${req.path}.`);
  });
  app.use(errorHandler);
  return app;
}

function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const txId = randomUUID();
    const started = process.hrtime.bigint();
    res.locals.txId = txId;
    res.locals.log = logger.child({ txId });
    res.setHeader('X-Transaction-Id', txId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      (res.locals.log as Logger).info(
        { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, outcome: res.locals.outcome },
        'solicitud',
      );
    });
    next();
  };
}

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

const errorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  sendFailure(res, toApiError(error, res.locals.log as Logger, res.locals.txId as string));
};

function toApiError(error: unknown, log: Logger, txId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreError) {
    if (error.kind === 'storage_full')
      return new ApiError('INSUFFICIENT_STORAGE', `${error.message} No se guardó nada de esta solicitud.`);
    return new ApiError('UNAVAILABLE', `${error.message} No se guardó nada de esta solicitud.`);
  }
  const parser = error as BodyParserError;
  switch (parser.type) {
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes.`);
    case 'entity.parse.failed':
      return new ApiError('BAD_REQUEST', 'El cuerpo no es JSON válido.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'El cuerpo debe ser JSON en UTF-8.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('BAD_REQUEST', 'El cuerpo llegó incompleto.');
  }
  log.error({ err: error }, 'error interno');
  return new ApiError('INTERNAL', `Error interno de la estación (transacción ${txId}).`);
}
