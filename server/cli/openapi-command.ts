import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../http/index.js';

export function serializeOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

export function runOpenApi(options: { out?: string }): void {
  if (options.out) writeFileSync(options.out, serializeOpenApi());
  else process.stdout.write(serializeOpenApi());
}
