import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Templates, images, embeddings and credentials never reach a log line: request bodies are
 * not logged at all, and these paths are censored wherever they appear in logged objects.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'template',
  '*.template',
  'documentTemplate',
  '*.documentTemplate',
  'image',
  '*.image',
  'embedding',
  '*.embedding',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'enrolla' },
      redact: { paths: REDACTED_PATHS, censor: '[redactado]' },
      timestamp: stdTimeFunctions.isoTime,
    },
    destination,
  );
}
