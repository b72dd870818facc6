import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { startTestStation } from '../helpers/station.js';

function handshake(
  port: number,
  options: { maxVersion?: 'TLSv1.1' | 'TLSv1.3'; ca?: string },
): Promise<{ ok: boolean; fingerprint?: string; protocol?: string | null }> {
  return new Promise((resolve) => {
    const socket = connect(
      { host: '127.0.0.1', port, rejectUnauthorized: Boolean(options.ca), ...options, minVersion: 'TLSv1' },
      () => {
        resolve({ ok: true, fingerprint: socket.getPeerCertificate().fingerprint256, protocol: socket.getProtocol() });
        socket.end();
      },
    );
    socket.on('error', () => resolve({ ok: false }));
  });
}

describe('transport', () => {
  it('serves HTTPS by default with a generated certificate whose fingerprint is the one reported', async () => {
    const t = await startTestStation();
    try {
      expect(t.station.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const cert = readFileSync(`${t.dataDir}/tls/station-cert.pem`, 'utf8');
      expect(new X509Certificate(cert).fingerprint256).toBe(t.station.fingerprint256);
      const modern = await handshake(t.station.port, { ca: cert });
      expect(modern).toMatchObject({ ok: true, fingerprint: t.station.fingerprint256, protocol: 'TLSv1.3' });
      expect((await handshake(t.station.port, { maxVersion: 'TLSv1.1' })).ok).toBe(false);
      const key = `${t.dataDir}/tls/station-key.pem`;
      expect((await import('node:fs')).statSync(key).mode & 0o077).toBe(0);
    } finally {
      await t.stop();
    }
  });

  it('keeps its certificate across restarts, so pinned clients keep working', async () => {
    const first = await startTestStation();
    const fingerprint = first.station.fingerprint256;
    await first.station.close();
    const { startStation } = await import('../../server/station/index.js');
    const { loadConfig } = await import('../../server/config/load.js');
    const { createLogger } = await import('../../server/log/logger.js');
    const again = await startStation(loadConfig({ env: {}, overrides: { dataDir: first.dataDir, port: 0 } }), {
      logger: createLogger('silent'),
      consoleDir: null,
    });
    expect(again.fingerprint256).toBe(fingerprint);
    expect(again.bootstrapToken).toBeNull();
    await again.close();
  });

  it('speaks plain HTTP only when asked to', async () => {
    const t = await startTestStation({ tls: { enabled: false } });
    try {
      expect(t.station.url).toMatch(/^http:\/\//);
      expect(t.station.fingerprint256).toBeNull();
      expect((await t.send('/salud')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('configured TLS files', () => {
  it('uses the given certificate, and refuses to start with a clear message when a file is missing', async () => {
    const first = await startTestStation();
    const certFile = `${first.dataDir}/tls/station-cert.pem`;
    const keyFile = `${first.dataDir}/tls/station-key.pem`;
    const fingerprint = first.station.fingerprint256;
    const second = await startTestStation({ tls: { enabled: true, certFile, keyFile } });
    try {
      expect(second.station.fingerprint256).toBe(fingerprint);
    } finally {
      await second.stop();
      await first.stop();
    }
    await expect(
      startTestStation({ tls: { enabled: true, certFile: '/nonexistent/cert.pem', keyFile: '/nonexistent/key.pem' } }),
    ).rejects.toThrow(/No se pudo leer el certificado TLS \/nonexistent\/cert.pem/);
  });
});

describe('internal faults', () => {
  it('answer 500 in the envelope with the transaction id, and the station keeps serving', async () => {
    const { expectEnvelope } = await import('../helpers/envelope.js');
    const t = await startTestStation({ engines: { face: { enabled: false } } });
    try {
      t.station.store.close(); // the database vanishes under the running station
      const res = await t.post('/biometria/listar-personas', {});
      const body = expectEnvelope(res, 500);
      expect(body.error.descripcion).toContain(res.headers['x-transaction-id'] as string);
      expect((await t.send('/salud')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
