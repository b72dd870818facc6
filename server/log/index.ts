// The log's entry point.
export { createLogger, type Logger } from './logger.js';
