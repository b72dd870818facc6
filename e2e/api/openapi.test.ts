import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, PUBLIC_PATHS } from '../../common/api/operations.js';
import { serializeOpenApi } from '../../server/cli/openapi-command.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

let t: TestStation;
beforeAll(async () => (t = await startTestStation()));
afterAll(() => t.stop());

describe('OpenAPI document', () => {
  it('is committed and has not drifted from the schemas (regenerate with `npm run openapi`)', () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(serializeOpenApi());
  });

  it('is served, lists every path with its request, response, scope and bearer auth', async () => {
    const res = await t.send(PUBLIC_PATHS.openapi);
    expect(res.status).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, { post?: Record<string, unknown> }> }>();
    expect(doc.openapi).toBe('3.1.0');
    for (const op of Object.values(OPERATIONS)) {
      const post = doc.paths[op.path]?.post;
      expect(post, op.path).toBeDefined();
      expect(post).toMatchObject({ operationId: op.id, 'x-scope': op.scope, security: [{ bearerAuth: [] }] });
      expect(Object.keys(post!.responses as object)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '413', '415', '429', '500']),
      );
    }
    const extract = JSON.stringify(doc.paths[OPERATIONS.extractFace.path]);
    for (const field of [
      'minIOD',
      'blinkSensibility',
      'facePoseSensibility',
      'videoFramesSeq',
      'ambosOjosCerrados',
      'fechaCreacionTemplate',
    ]) {
      expect(extract).toContain(field);
    }
  });

  it('has a human-readable page that names every path and field', async () => {
    const res = await t.send(PUBLIC_PATHS.docs);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    for (const op of Object.values(OPERATIONS)) expect(res.text).toContain(op.path);
    expect(res.text).toContain('parametros.minIOD');
    expect(res.text).not.toMatch(/<script[^>]+src=/);
  });
});
