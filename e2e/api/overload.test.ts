import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';

// Beyond capacity the face engine's bounded queue refuses at once with the 503 envelope
// (and Retry-After) instead of letting requests pile up; everything else is served.
let t: TestStation;
let token: string;

beforeAll(async () => {
  t = await startTestStation(
    { engines: { face: { enabled: true, workers: 1, maxQueue: 1 }, document: { enabled: false } } },
    { waitForEngines: true },
  );
  token = t.token(['enroll', 'identify']);
  const enrolled = await t.post(
    OPERATIONS.enroll.path,
    { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') },
    token,
  );
  expectEnvelope(enrolled, 200);
}, 120_000);
afterAll(() => t?.stop());

describe('a flood of identifications', () => {
  it('is answered 200 or 503 with the envelope, nothing else', async () => {
    const template = await faceTemplate('fr-kit_harington_test1.jpg');
    const answers = await Promise.all(Array.from({ length: 16 }, () => t.post(OPERATIONS.identify.path, { template }, token)));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 200 || s === 503),
      statuses.join(','),
    ).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    for (const a of answers) {
      if (a.status === 200) {
        expect(expectEnvelope(a, 200).data).toMatchObject({ status: 'IDENTIFY_OK', candidates: [{ idPersona: 'kit' }] });
      } else {
        expect(expectEnvelope(a, 503).error.descripcion).toMatch(/ocupada/);
        expect(a.headers['retry-after']).toBe('2');
      }
    }
    // Served again once the flood is over.
    expectEnvelope(await t.post(OPERATIONS.identify.path, { template }, token), 200);
  }, 120_000);
});
