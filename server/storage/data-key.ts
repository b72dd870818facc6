import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export const DATA_KEY_BYTES = 32;
export const DATA_KEY_ENV = 'ENROLLA_DATA_KEY';
/** A shared gallery's key being replaced, held beside the new one during a fleet rotation. */
export const PREVIOUS_DATA_KEY_ENV = 'ENROLLA_DATA_KEY_PREVIOUS';

export class DataKeyError extends Error {
  override name = 'DataKeyError';
}

/**
 * The station's data key (AES-256) for biometric data at rest: from ENROLLA_DATA_KEY (base64,
 * for deployments whose secret store injects it), else `<dataDir>/keys/data.key` with owner-only
 * permissions, created on first start. In Electron the shell supplies it from safeStorage.
 */
export function loadOrCreateDataKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const existing = loadDataKey(dataDir, env);
  if (existing) return existing;
  const file = keyFile(dataDir);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(DATA_KEY_BYTES);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

/**
 * The station's data key where the environment or the key file gives it, or null (never created:
 * for commands that only check data against it; a desktop station keeps it in safeStorage).
 */
export function loadDataKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer | null {
  const fromEnv = dataKeyFromEnv(DATA_KEY_ENV, env);
  if (fromEnv) return fromEnv;
  const file = keyFile(dataDir);
  return existsSync(file) ? readKeyFile(file) : null;
}

/**
 * A key file as `writeKeyFile` writes it (an exported key too): base64 of 32 bytes, owner-only.
 * `ownerOnly: false` for a key read once from removable media, whose file system (FAT) has no modes.
 */
export function readKeyFile(file: string, { ownerOnly = true }: { ownerOnly?: boolean } = {}): Buffer {
  const mode = statSync(file).mode & 0o777;
  if (ownerOnly && mode & 0o077)
    throw new DataKeyError(`${file} es legible por otros usuarios (modo ${mode.toString(8)}); use chmod 600`);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== DATA_KEY_BYTES) throw new DataKeyError(`${file} no contiene una clave de 32 bytes en base64`);
  return key;
}

/** A key given in the environment (base64, 32 bytes), or null when the variable is not set. */
export function dataKeyFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): Buffer | null {
  const value = env[name];
  if (!value) return null;
  const key = Buffer.from(value, 'base64');
  if (key.length !== DATA_KEY_BYTES)
    throw new DataKeyError(`${name} debe ser una clave de 32 bytes en base64 (tiene ${key.length} bytes)`);
  return key;
}

export function keyFile(dataDir: string): string {
  return path.join(dataDir, 'keys', 'data.key');
}

/** Where a rotation writes the next key before the database is re-sealed with it. */
export function pendingKeyFile(dataDir: string): string {
  return path.join(dataDir, 'keys', 'data.key.next');
}

export function writeKeyFile(file: string, key: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
