import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { MAX_BODY_BYTES } from '../../common/limits.js';
import { SCOPES } from '../../common/scopes.js';
import { encodeTemplate } from '../../common/uitemplate/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

const photo = new Uint8Array(readFileSync(new URL('../../test/fixtures/face-a.jpg', import.meta.url)));
let t: TestStation;
let templates: { face: string; document: string };

/** A request that passes validation for each operation. */
function validBody(id: string): Record<string, unknown> {
  switch (id) {
    case 'enroll':
    case 'verify':
      return { idPersona: '30111222', template: templates.face };
    case 'identify':
    case 'extractFace':
    case 'spoof':
      return { template: templates.face };
    case 'extractDni':
      return { template: templates.document };
    case 'matchDniFace':
      return { documentTemplate: templates.document, template: templates.face };
    case 'getPerson':
    case 'deletePerson':
      return { idPersona: 'nadie' };
    case 'createToken':
      return { name: 'nuevo', scopes: ['verify'] };
    case 'revokeToken':
      return { id: 'nada' };
    default:
      return {};
  }
}

beforeAll(async () => {
  // The matrix below fails authentication on purpose many times; throttling has its own test.
  // The face engine is off here: the contract's shape, not the engine, is under test (e2e/api/face.test.ts).
  t = await startTestStation({
    auth: { maxFailures: 1000, windowSeconds: 60 },
    engines: { face: { enabled: false }, document: { enabled: false } },
  });
  templates = {
    face: await encodeTemplate({ kind: 'face', frames: [{ data: photo }], device: { kind: 'file' } }),
    document: await encodeTemplate({ kind: 'document', frames: [{ data: photo, side: 'front' }], device: { kind: 'file' } }),
  };
});
afterAll(() => t.stop());

describe('every path of the contract', () => {
  it.each(Object.values(OPERATIONS).map((op) => [op.path, op] as const))(
    '%s answers an envelope with a valid token',
    async (_path, op) => {
      const res = await t.post(op.path, validBody(op.id), t.token([...SCOPES]));
      const engine = op.templates !== undefined;
      const body = expectEnvelope(res, engine ? 501 : 200);
      if (engine) expect(body.error.descripcion).toMatch(/no está disponible en esta estación/);
    },
  );

  it("takes the vendor's auditToken on every path and records it beside the caller; refuses a malformed one", async () => {
    const token = t.token([...SCOPES], 'integrador');
    for (const op of Object.values(OPERATIONS)) {
      const res = await t.post(op.path, { ...validBody(op.id), auditToken: `caso-${op.id}` }, token);
      expect([200, 501], `${op.path}: ${res.text.slice(0, 200)}`).toContain(res.status);
    }
    const audit = expectEnvelope(await t.post(OPERATIONS.listAudit.path, { limit: 1000 }), 200).data as {
      entries: { operation: string; tokenName: string; auditToken: string | null }[];
    };
    for (const op of Object.values(OPERATIONS)) {
      expect(audit.entries).toContainEqual(
        expect.objectContaining({ operation: op.id, tokenName: 'integrador', auditToken: `caso-${op.id}` }),
      );
    }
    for (const bad of ['', 'x'.repeat(65), 'a\u0000b', 7]) {
      const res = await t.post(OPERATIONS.listPersons.path, { auditToken: bad }, token);
      expect(expectEnvelope(res, 400).error.descripcion).toMatch(/auditToken/);
    }
  });

  it('refuses each path without the right credentials: 401 without a valid token, 403 without the scope', async () => {
    const revoked = t.token(['admin']);
    t.station.tokens.revoke(revoked.slice(4, 16)); // enr_<id:12>_<secret>
    for (const op of Object.values(OPERATIONS)) {
      const body = validBody(op.id);
      for (const token of [null, 'garbage', `enr_${'A'.repeat(12)}_${'B'.repeat(43)}`, revoked]) {
        expectEnvelope(await t.post(op.path, body, token), 401);
      }
      const others = SCOPES.filter((s) => s !== op.scope);
      expectEnvelope(await t.post(op.path, body, t.token(others)), 403);
      const own = await t.post(op.path, body, t.token([op.scope]));
      expect([200, 501]).toContain(own.status);
    }
  });
});

describe('bad requests get a precise envelope', () => {
  const path = OPERATIONS.verify.path;

  it('malformed JSON, non-object bodies, wrong media type, wrong method, unknown paths', async () => {
    const token = t.token(['verify']);
    expect(expectEnvelope(await t.post(path, '{"idPersona":', token), 400).error.descripcion).toMatch(/JSON válido/);
    expect(expectEnvelope(await t.post(path, '[1,2]', token), 400).error.descripcion).toMatch(/objeto JSON/);
    const plain = await t.send(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expectEnvelope(plain, 415);
    const get = await t.send(path, { headers: { Authorization: `Bearer ${token}` } });
    expectEnvelope(get, 405);
    expect(get.headers.allow).toBe('POST');
    expectEnvelope(await t.post('/biometria/no-existe', {}), 404);
    expectEnvelope(await t.send('/nada'), 404);
  });

  it('wrong types, missing, out-of-range and unknown fields are named', async () => {
    const token = t.token(['verify', 'extract']);
    const missing = expectEnvelope(await t.post(path, { template: templates.face }, token), 400);
    expect(missing.error.descripcion).toMatch(/campo 'idPersona': es obligatorio/);
    const wrongType = expectEnvelope(await t.post(path, { idPersona: 30111222, template: templates.face }, token), 400);
    expect(wrongType.error.descripcion).toMatch(/campo 'idPersona': debe ser un texto \(llegó 30111222\)/);
    const range = await t.post(OPERATIONS.extractFace.path, { template: templates.face, parametros: { minIOD: 2000 } }, token);
    expect(expectEnvelope(range, 400).error.descripcion).toMatch(/campo 'parametros.minIOD': debe ser <= 1024 \(llegó 2000\)/);
    const nested = await t.post(
      OPERATIONS.extractFace.path,
      { template: templates.face, parametros: { facePoseSensibility: { lookingFront: 'x' } } },
      token,
    );
    expect(expectEnvelope(nested, 400).error.descripcion).toMatch(/parametros.facePoseSensibility.lookingFront/);
    const unknown = expectEnvelope(await t.post(path, { idPersona: 'a', template: templates.face, plantilla: 1 }, token), 400);
    expect(unknown.error.descripcion).toMatch(/no reconocido: 'plantilla'/);
  });

  it('an invalid template is a 400 that says so', async () => {
    const token = t.token(['verify', 'document']);
    const res = await t.post(path, { idPersona: 'a', template: 'not a template' }, token);
    expect(expectEnvelope(res, 400).error.descripcion).toMatch(/^Template inválido: /);
    const wrongKind = await t.post(path, { idPersona: 'a', template: templates.document }, token);
    expect(expectEnvelope(wrongKind, 400).error.descripcion).toMatch(/se esperaba un template de rostro/);
    const doc = await t.post(OPERATIONS.matchDniFace.path, { documentTemplate: templates.face, template: templates.face }, token);
    expect(expectEnvelope(doc, 400).error.descripcion).toMatch(/^documentTemplate: Template inválido/);
  });

  it('a body over the limit is refused with 413 before it is read whole', async () => {
    const huge = JSON.stringify({ idPersona: 'a', template: 'A'.repeat(MAX_BODY_BYTES + 10) });
    expectEnvelope(await t.post(path, huge, t.token(['verify'])), 413);
  });
});

describe('station surface', () => {
  it('health answers without a token and without station data', async () => {
    const body = expectEnvelope(await t.send('/salud'), 200);
    expect(Object.keys(body.data as object).sort()).toEqual(['status', 'txId']);
  });

  it('sets security headers and a transaction id on every answer', async () => {
    const res = await t.post(OPERATIONS.listPersons.path, {});
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toMatch(/max-age/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['x-transaction-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('manages persons in the gallery', async () => {
    await t.station.gallery.enroll('20333444', [{ modelId: 'm', embedding: new Float32Array(4), quality: 80, thumbnail: null }], {
      replace: false,
    });
    const token = t.token(['enroll']);
    const list = expectEnvelope(await t.post(OPERATIONS.listPersons.path, { filtro: '2033' }, token), 200);
    expect(list.data).toMatchObject({ total: 1, persons: [{ idPersona: '20333444', samples: 1 }] });
    const got = expectEnvelope(await t.post(OPERATIONS.getPerson.path, { idPersona: '20333444' }, token), 200);
    expect(got.data).toMatchObject({ status: 'SUCCESS', person: { sampleList: [{ modelId: 'm', quality: 80 }] } });
    expect(JSON.stringify(got.data)).not.toMatch(/embedding/);
    const del = expectEnvelope(await t.post(OPERATIONS.deletePerson.path, { idPersona: '20333444' }, token), 200);
    expect(del.data).toMatchObject({ status: 'SUCCESS', samplesDeleted: 1 });
    const again = expectEnvelope(await t.post(OPERATIONS.getPerson.path, { idPersona: '20333444' }, token), 200);
    expect(again.data).toMatchObject({ status: 'INEXISTENT', person: null });
  });

  it('creates, lists and revokes tokens over the admin surface, and audits without biometric data', async () => {
    const created = expectEnvelope(
      await t.post(OPERATIONS.createToken.path, { name: 'caja 3', scopes: ['verify', 'identify'] }),
      200,
    );
    const { token, info } = created.data as { token: string; info: { id: string } };
    expectEnvelope(await t.post(OPERATIONS.verify.path, { idPersona: 'x', template: templates.face }, token), 501);
    const listed = expectEnvelope(await t.post(OPERATIONS.listTokens.path, {}), 200);
    expect(JSON.stringify(listed.data)).not.toContain(token.slice(-43));
    expect((listed.data as { tokens: { name: string }[] }).tokens.map((x) => x.name)).toContain('caja 3');
    expect(expectEnvelope(await t.post(OPERATIONS.revokeToken.path, { id: info.id }), 200).data).toMatchObject({
      status: 'SUCCESS',
    });
    expectEnvelope(await t.post(OPERATIONS.verify.path, { idPersona: 'x', template: templates.face }, token), 401);

    const audit = expectEnvelope(await t.post(OPERATIONS.listAudit.path, { limit: 1000 }), 200);
    const entries = (audit.data as { entries: { operation: string; tokenName: string; outcome: string }[] }).entries;
    expect(entries).toContainEqual(expect.objectContaining({ operation: 'verify', tokenName: 'caja 3', outcome: 'ERROR_501' }));
    expect(JSON.stringify(entries)).not.toContain(templates.face.slice(0, 40));
  });

  it('reports station status with the certificate fingerprint', async () => {
    const res = expectEnvelope(await t.post(OPERATIONS.stationStatus.path, {}), 200);
    expect(res.data).toMatchObject({ tls: { enabled: true, fingerprint256: t.station.fingerprint256 } });
  });

  it('reports the settings in force: loopback only, default thresholds', async () => {
    const res = expectEnvelope(await t.post(OPERATIONS.stationSettings.path, {}), 200);
    expect(res.data).toMatchObject({
      network: { host: '127.0.0.1', port: t.station.port, lanExposed: false, tls: true },
      matching: { verifyFmr: 1e-3, verifyThreshold: 36, spoofThreshold: 50 },
    });
  });
});

/** A POST whose body of `bytes` is written in 16 KB pieces as the socket drains, as a client streaming a file does. */
function streamedPost(s: TestStation, path: string, bytes: number, token: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, s.station.url),
      {
        method: 'POST',
        ca: readFileSync(join(s.dataDir, 'tls', 'station-cert.pem'), 'utf8'),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'Content-Length': String(bytes) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    const piece = Buffer.alloc(16_384, 0x41);
    let sent = 0;
    const write = (): void => {
      while (sent < bytes) {
        const n = Math.min(piece.length, bytes - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

describe('failed authentication throttling', () => {
  it('refuses an address that fails too often with 429 and its envelope, and still serves valid tokens from it', async () => {
    const s = await startTestStation({ auth: { maxFailures: 3, windowSeconds: 60 } });
    try {
      // An integrator with a stale token, sending templates (a body of 50 KB), on the console's address.
      const template = JSON.stringify({ template: 'A'.repeat(50_000) });
      for (let i = 0; i < 3; i++) expectEnvelope(await s.post(OPERATIONS.extractFace.path, template, 'enr_stale'), 401);
      for (let i = 0; i < 3; i++) {
        const blocked = await s.post(OPERATIONS.extractFace.path, template, 'enr_stale');
        expect(expectEnvelope(blocked, 429).error.descripcion).toMatch(/Demasiados intentos/);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      }
      // A template of 8 MB streamed in 16 KB pieces: the envelope arrives, not a reset connection.
      const streamed = await streamedPost(s, OPERATIONS.extractFace.path, 8 * 2 ** 20, 'enr_stale');
      expect(streamed.status).toBe(429);
      expect(JSON.parse(streamed.text)).toMatchObject({ success: false, error: { codigo: 429 } });
      // The operator's valid token, from the same address, is not locked out.
      expectEnvelope(await s.post(OPERATIONS.stationStatus.path, {}, s.adminToken), 200);
      expectEnvelope(await s.post(OPERATIONS.listPersons.path, {}, null), 429);
    } finally {
      await s.stop();
    }
  });
});
