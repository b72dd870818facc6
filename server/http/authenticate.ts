import type { RequestHandler } from 'express';
import type { Scope } from '../../common/scopes.js';
import type { AuthFailure, TokenService, FailedAuthThrottle } from '../auth/index.js';
import { ApiError } from '../domain/index.js';
import { HttpError } from './http-error.js';

const FAILURE_TEXT: Record<AuthFailure, string> = {
  missing: "Falta la cabecera 'Authorization: Bearer <token>'.",
  malformed: "La cabecera Authorization no tiene la forma 'Bearer <token>' con un token de Enrolla.",
  unknown: 'El token no es válido.',
  revoked: 'El token fue revocado.',
};

export interface Authenticator {
  require(scope: Scope): RequestHandler;
}

export function createAuthenticator(tokens: TokenService, throttle: FailedAuthThrottle): Authenticator {
  return {
    require(scope) {
      return (req, res, next) => {
        const address = req.socket.remoteAddress ?? 'desconocida';
        const result = tokens.authenticate(req.headers.authorization);
        if (!result.ok) {
          // Refused for its failure, or with 429 once its address has failed too often; a valid
          // token is never refused for its address's failures.
          const wait = throttle.retryAfter(address);
          throttle.recordFailure(address);
          res.locals.log?.warn({ failure: result.failure, address, throttled: wait > 0 }, 'autenticación fallida');
          if (wait > 0) {
            throw new ApiError(
              'TOO_MANY_REQUESTS',
              `Demasiados intentos de autenticación fallidos desde esta dirección; reintente en ${wait} s con un token válido.`,
              wait,
            );
          }
          throw new HttpError('UNAUTHENTICATED', FAILURE_TEXT[result.failure], {
            'WWW-Authenticate': `Bearer realm="enrolla"${result.failure === 'missing' ? '' : ', error="invalid_token"'}`,
          });
        }
        if (!result.token.scopes.includes(scope)) {
          res.locals.token = result.token;
          throw new ApiError(
            'FORBIDDEN',
            `El token '${result.token.name}' no tiene el alcance '${scope}' que requiere ${req.path}.`,
          );
        }
        res.locals.token = result.token;
        res.locals.log = res.locals.log?.child({ tokenName: result.token.name });
        next();
      };
    },
  };
}
