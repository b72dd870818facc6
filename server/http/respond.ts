import type { Response } from 'express';
import { failureEnvelope, successEnvelope } from '../../common/envelope.js';
import type { ApiError } from '../domain/index.js';
import { httpAnswerOf } from './http-error.js';

export function sendSuccess(res: Response, data: unknown): void {
  res.status(200).json(successEnvelope(data));
}

export function sendFailure(res: Response, error: ApiError): void {
  if (res.headersSent) return;
  const { status, headers } = httpAnswerOf(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(failureEnvelope(status, error.descripcion));
}
