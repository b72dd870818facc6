import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { ApiError } from '../domain/index.js';

/**
 * The browser capture components' models, served by the station itself (`/modelos/human/…`,
 * `/modelos/tfjs-wasm/…`): nothing is fetched from the internet. They are public model files,
 * so no token is asked, and other front ends on the LAN may load them (CORS, CORP).
 */
export const MODEL_ROUTE = '/modelos';
const PUBLIC_FOLDERS = ['human', 'tfjs-wasm'] as const;

/** Public files other LAN origins may load: the models, and the embeddable components (/embed/). */
export const crossOrigin: RequestHandler = (_req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  next();
};

export function modelFiles(modelsDir: string): RequestHandler {
  const router = express.Router();
  router.use(crossOrigin);
  for (const folder of PUBLIC_FOLDERS) {
    router.use(
      `/${folder}`,
      express.static(path.join(modelsDir, folder), { index: false, fallthrough: true, maxAge: '1d', dotfiles: 'ignore' }),
    );
  }
  // Anything else under /modelos/ is not public (and must not fall through to the console).
  router.use((req) => {
    throw new ApiError('NOT_FOUND', `No existe el recurso ${MODEL_ROUTE}${req.path}.`);
  });
  return router;
}
