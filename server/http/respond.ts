import type { Response } from 'express';
import { failureEnvelope, successEnvelope } from '../../common/envelope.js';
import type { ApiError } from './api-error.js';

export function sendSuccess(res: Response, data: unknown): void {
  res.status(200).json(successEnvelope(data));
}

export function sendFailure(res: Response, error: ApiError): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(failureEnvelope(error.status, error.descripcion));
}
