import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SafeStorageLike } from './electron-surface.js';

/** Documented override (docs/security.md): accept Linux's plaintext safeStorage backend. */
export const ALLOW_PLAINTEXT_ENV = 'ENROLLA_ALLOW_PLAINTEXT_SECRETS';

export class SecretStoreError extends Error {
  override name = 'SecretStoreError';
}

/**
 * Refuses to keep secrets where safeStorage would not protect them: no encryption available,
 * or Linux's `basic_text` backend (a password hard-coded in Chromium, i.e. plaintext in effect,
 * chosen when no keyring such as GNOME Keyring or KWallet is running).
 */
export function assertProtectedStorage(
  safeStorage: SafeStorageLike,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): { backend: string } {
  if (!safeStorage.isEncryptionAvailable()) {
    throw new SecretStoreError(
      'El sistema no ofrece almacenamiento cifrado de secretos (safeStorage): no se puede guardar la clave de los datos biométricos.',
    );
  }
  const backend = platform === 'linux' ? (safeStorage.getSelectedStorageBackend?.() ?? 'unknown') : 'os';
  if (backend === 'basic_text' && env[ALLOW_PLAINTEXT_ENV] !== '1') {
    throw new SecretStoreError(
      'No hay un llavero del sistema (GNOME Keyring, KWallet) disponible: los secretos quedarían en texto plano. ' +
        'Inicie una sesión con llavero, o, asumiendo el riesgo, defina ' +
        `${ALLOW_PLAINTEXT_ENV}=1 (ver docs/security.md).`,
    );
  }
  return { backend };
}

/**
 * Named secrets sealed with safeStorage, one file each (`<dir>/<name>.sealed`, owner-only),
 * written atomically so a crash never leaves half a blob.
 */
export class SealedSecrets {
  constructor(
    private readonly dir: string,
    private readonly safeStorage: SafeStorageLike,
  ) {}

  file(name: string): string {
    return path.join(this.dir, `${name}.sealed`);
  }

  has(name: string): boolean {
    return existsSync(this.file(name));
  }

  read(name: string): string | null {
    const file = this.file(name);
    if (!existsSync(file)) return null;
    try {
      return this.safeStorage.decryptString(readFileSync(file));
    } catch (error) {
      throw new SecretStoreError(
        `No se pudo descifrar ${file} con el llavero de este usuario (${(error as Error).message}). ` +
          'Se cifró en otra cuenta o con otro llavero.',
      );
    }
  }

  write(name: string, value: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(name);
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, this.safeStorage.encryptString(value), { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** The names of the secrets sealed here. */
  names(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.sealed'))
      .map((f) => f.slice(0, -'.sealed'.length));
  }

  remove(name: string): void {
    rmSync(this.file(name), { force: true });
  }
}
