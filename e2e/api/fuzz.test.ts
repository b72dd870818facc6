import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { SCOPES } from '../../common/scopes.js';
import { encodeTemplate } from '../../common/uitemplate/index.js';
import { fakeJpeg } from '../../test/images.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

// Every endpoint under random and malformed bodies: always a well-formed envelope with a status
// under 500 (or 200), never a crash, a hang or a 5xx.
let t: TestStation;
let token: string;
let headerOnly: string;
const paths = Object.values(OPERATIONS).map((op) => op.path);

beforeAll(async () => {
  t = await startTestStation({ auth: { maxFailures: 1000, windowSeconds: 60 } }, { waitForEngines: true });
  token = t.token([...SCOPES]);
  // A template whose frame has a valid JPEG header but no image: it reaches the engine's decoder.
  headerOnly = await encodeTemplate({ kind: 'face', frames: [{ data: fakeJpeg(640, 480) }], device: { kind: 'file' } });
}, 120_000);
afterAll(() => t?.stop());

function expectWellFormed(status: number, text: string): void {
  expect(status === 200 || (status >= 400 && status < 500), `${status}: ${text.slice(0, 300)}`).toBe(true);
  const body = JSON.parse(text) as {
    success: boolean;
    error: { codigo: number; descripcion: string; tipo: string };
    data: unknown;
  };
  expect(typeof body.success).toBe('boolean');
  expect(body.error.codigo).toBe(status === 200 ? 0 : status);
  if (status !== 200) expect(body.data).toBeNull();
}

let cases = 0;
/** Counts the generated cases, so the run reports how many it tried. */
const runs = (n: number): number => ((cases += n), n);
afterAll(() => console.info(`fuzzing, endpoints: ${cases} cases`));

describe('endpoints under fuzzing', () => {
  it('answer arbitrary JSON values with an envelope and a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue(), async (path, value) => {
        const res = await t.post(path, JSON.stringify(value), token);
        expectWellFormed(res.status, res.text);
      }),
      { numRuns: runs(300) },
    );
  });

  it('answer well-shaped requests with random field values (unicode, types, ranges, templates)', async () => {
    const fieldValue = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(headerOnly),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.double(), fc.boolean(), fc.string()), { maxKeys: 4 }),
    );
    const body = fc.record(
      {
        idPersona: fieldValue,
        template: fieldValue,
        documentTemplate: fieldValue,
        image: fieldValue,
        parametros: fc.oneof(
          fieldValue,
          fc.dictionary(fc.constantFrom('minIOD', 'threshold', 'maxResults', 'useCache', 'videoFramesSeq', 'x'), fieldValue),
        ),
        name: fieldValue,
        scopes: fieldValue,
        limit: fieldValue,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, async (path, value) => {
        const res = await t.post(path, JSON.stringify(value), token);
        expectWellFormed(res.status, res.text);
      }),
      { numRuns: runs(400) },
    );
  });

  it('answer malformed bytes and bad headers with an envelope', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.uint8Array({ maxLength: 2000 }),
        fc.constantFrom(
          'application/json',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          '',
        ),
        async (path, bytes, type) => {
          const res = await t.send(path, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, ...(type ? { 'Content-Type': type } : {}) },
            body: Buffer.from(bytes),
          });
          expectWellFormed(res.status, res.text);
        },
      ),
      { numRuns: runs(300) },
    );
    const rss = process.memoryUsage().rss / 2 ** 20;
    expect(rss).toBeLessThan(2048);
  });
});
