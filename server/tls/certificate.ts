import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, colon-separated hex, for LAN clients to pin. */
  fingerprint256: string;
  generated: boolean;
  certFile: string;
}

/**
 * Uses the configured files, or the station's own self-signed pair under
 * `<dataDir>/tls/`, generating it on first start.
 */
export async function loadOrCreateTls(
  dataDir: string,
  files?: { certFile?: string | undefined; keyFile?: string | undefined },
): Promise<TlsMaterial> {
  if (files?.certFile && files.keyFile) {
    const read = (file: string, what: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (error) {
        throw new Error(`No se pudo leer ${what} TLS ${file}: ${(error as Error).message}`);
      }
    };
    const cert = read(files.certFile, 'el certificado');
    const key = read(files.keyFile, 'la clave');
    let fingerprint256: string;
    try {
      fingerprint256 = fingerprintOf(cert);
    } catch {
      throw new Error(`${files.certFile} no es un certificado X.509 en formato PEM`);
    }
    return { cert, key, fingerprint256, generated: false, certFile: files.certFile };
  }
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'station-cert.pem');
  const keyFile = path.join(dir, 'station-key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    return { cert, key: readFileSync(keyFile, 'utf8'), fingerprint256: fingerprintOf(cert), generated: false, certFile };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = hostname();
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 5);
  const pems = await selfsigned.generate([{ name: 'commonName', value: `Enrolla ${name}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: name },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  writeFileSync(certFile, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, fingerprint256: fingerprintOf(pems.cert), generated: true, certFile };
}

export function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}
