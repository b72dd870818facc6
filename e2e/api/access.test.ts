import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, PUBLIC_PATHS } from '../../common/api/operations.js';
import { SCOPES } from '../../common/scopes.js';
import { createLogger } from '../../server/log/logger.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { faceTemplate, fixture } from '../helpers/templates.js';

/** The same token id with another secret: it finds the row, then must fail the hash comparison. */
const wrongSecret = (token: string) => `${token.slice(0, 17)}${token.at(17) === 'A' ? 'B' : 'A'}${token.slice(18)}`;

describe('no path answers data without a valid token', () => {
  let t: TestStation;
  beforeAll(async () => {
    // Engines off: authentication comes before any engine, and the gallery is filled directly.
    t = await startTestStation({
      auth: { maxFailures: 1000, windowSeconds: 60 },
      engines: { face: { enabled: false }, document: { enabled: false } },
    });
    const embedding = Float32Array.from({ length: 128 }, (_, i) => Math.sin(i));
    await t.station.gallery.enroll('30111222', [{ modelId: 'm', embedding, quality: 90, thumbnail: fixture('face-a.jpg') }], {
      replace: false,
    });
  });
  afterAll(() => t?.stop());

  it('every operation, by GET and POST, refuses a missing, malformed, revoked, wrong-secret or misplaced token', async () => {
    const valid = t.token([...SCOPES]);
    const revoked = t.token([...SCOPES]);
    t.station.tokens.revoke(revoked.slice(4, 16));
    const headers: (Record<string, string> | null)[] = [
      null,
      { Authorization: 'Bearer' },
      { Authorization: `Basic ${Buffer.from(`admin:${valid}`).toString('base64')}` },
      { Authorization: `Bearer ${valid.slice(0, -1)}` },
      { Authorization: `Bearer ${revoked}` },
      { Authorization: `Bearer ${wrongSecret(valid)}` },
      { 'X-Api-Key': valid },
      { Cookie: `token=${valid}` },
    ];
    let requests = 0;
    for (const op of Object.values(OPERATIONS)) {
      const body = JSON.stringify({ idPersona: '30111222', token: valid });
      for (const method of ['POST', 'GET'] as const) {
        for (const extra of headers) {
          for (const query of ['', `?token=${valid}`, `?access_token=${valid}`]) {
            const res = await t.send(`${op.path}${query}`, {
              method,
              headers: { 'Content-Type': 'application/json', ...extra },
              ...(method === 'POST' ? { body } : {}),
            });
            requests++;
            // GET is refused by method before authentication (docs/errors.md): no data either way.
            const envelope = expectEnvelope(res, method === 'GET' ? 405 : 401);
            expect(envelope.data).toBeNull();
          }
        }
      }
    }
    // The same requests with the token where it belongs do reach the operations.
    const ok = await t.post(OPERATIONS.getPerson.path, { idPersona: '30111222' }, valid);
    expect(expectEnvelope(ok, 200).data).toMatchObject({ status: 'SUCCESS', person: { idPersona: '30111222' } });
    console.info(`auth sweep: ${requests} requests over ${Object.keys(OPERATIONS).length} operations, none answered data`);
  }, 120_000);

  it('the public paths carry no station data: liveness only, and the API description', async () => {
    const health = expectEnvelope(await t.send(PUBLIC_PATHS.health), 200);
    expect(Object.keys(health.data as object).sort()).toEqual(['status', 'txId']);
    for (const p of [PUBLIC_PATHS.openapi, PUBLIC_PATHS.docs]) {
      const res = await t.send(p);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('30111222');
    }
  });
});

describe('tokens, templates and images never reach the log', () => {
  let t: TestStation;
  const lines: string[] = [];

  beforeAll(async () => {
    const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
    t = await startTestStation({ auth: { maxFailures: 1000, windowSeconds: 60 } }, { logger, waitForEngines: true });
  }, 120_000);
  afterAll(() => t?.stop());

  it('across valid and invalid credentials, in headers, query strings and bodies', async () => {
    const admin = t.adminToken;
    const user = t.token(['enroll', 'verify', 'identify', 'extract', 'spoof']);
    const revoked = t.token(['verify']);
    t.station.tokens.revoke(revoked.slice(4, 16));
    const template = await faceTemplate('fr-obama.jpg');
    const probe = await faceTemplate('fr-obama-test1.jpg');
    const photo = Buffer.from(fixture('fr-obama.jpg')).toString('base64');
    const answers: string[] = [];
    const send = async (path: string, body: unknown, token: string | null, query = '') => {
      const res = await t.send(`${path}${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      answers.push(res.text);
      return res;
    };

    expectEnvelope(await send(OPERATIONS.enroll.path, { idPersona: 'obama', template }, user), 200);
    expectEnvelope(await send(OPERATIONS.verify.path, { idPersona: 'obama', template: probe }, user), 200);
    expectEnvelope(await send(OPERATIONS.identify.path, { template: probe }, user), 200);
    expectEnvelope(await send(OPERATIONS.extractFace.path, { template: probe }, user), 200);
    expectEnvelope(await send(OPERATIONS.spoof.path, { template: probe, parametros: { extractFace: true } }, user), 200);
    expectEnvelope(await send(OPERATIONS.getPerson.path, { idPersona: 'obama' }, user), 200);
    const created = expectEnvelope(await send(OPERATIONS.createToken.path, { name: 'caja', scopes: ['verify'] }, admin), 200);
    const createdToken = (created.data as { token: string }).token;
    expectEnvelope(await send(OPERATIONS.verify.path, { idPersona: 'obama', template: probe }, createdToken), 200);
    for (const bad of [revoked, wrongSecret(user), `${user}x`, null]) {
      expectEnvelope(
        await send(OPERATIONS.verify.path, { idPersona: 'obama', template: probe, token: user }, bad, `?token=${user}`),
        401,
      );
    }
    // An invalid template and an unknown field holding a token: 400s whose descriptions name the field, not the value.
    expectEnvelope(
      await send(OPERATIONS.verify.path, { idPersona: 'obama', template: `${template.slice(0, -8)}AAAAAAAA` }, user),
      400,
    );
    expectEnvelope(await send(OPERATIONS.verify.path, { idPersona: 'obama', template: probe, token: admin }, user), 400);
    expectEnvelope(await send(OPERATIONS.verify.path, { idPersona: 'obama', image: photo, template: probe }, user), 400);

    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(15);
    expect(log).toContain('"tokenName":'); // the log does say who
    expect(log).toContain('autenticación fallida'); // and that someone failed, without what they presented
    for (const token of [admin, user, revoked, createdToken]) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(token.slice(17)); // the secret part alone
    }
    // Any 24-character window of a template, the photo or a returned image or thumbnail would be a leak.
    const thumbnails = answers.flatMap((a) =>
      [...a.matchAll(/"(?:thumbnail|image|faceImage)":"([A-Za-z0-9+/=_-]{64,})"/g)].map((m) => m[1]!),
    );
    expect(thumbnails.length).toBeGreaterThan(2);
    for (const secret of [template, probe, photo, ...thumbnails]) {
      for (let at = 0; at + 24 <= secret.length; at += Math.max(24, Math.floor(secret.length / 64))) {
        expect(log.includes(secret.slice(at, at + 24)), `log holds bytes at ${at} of a ${secret.length}-char secret`).toBe(false);
      }
    }
    console.info(`log capture: ${lines.length} lines, ${log.length} chars, no token, template or image content`);
  }, 120_000);
});
