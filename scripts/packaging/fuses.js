// Electron fuses, flipped in the packaged binary (electron-builder 25 has no `electronFuses`
// option; this follows the wire format of @electron/fuses without adding the dependency).
// The binary holds: SENTINEL, a version byte (1), a length byte, then one byte per fuse:
// '0' disabled, '1' enabled, 'r' removed from this Electron.
import { open } from 'node:fs/promises';

export const SENTINEL = Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX');
const DISABLE = 0x30;
const ENABLE = 0x31;
const REMOVED = 0x72;

/** Fuse names in wire order (FuseV1Options). */
export const FUSE_ORDER = [
  'runAsNode',
  'enableCookieEncryption',
  'enableNodeOptionsEnvironmentVariable',
  'enableNodeCliInspectArguments',
  'enableEmbeddedAsarIntegrityValidation',
  'onlyLoadAppFromAsar',
  'loadBrowserProcessSpecificV8Snapshot',
  'grantFileProtocolExtraPrivileges',
];

/** Enrolla's fuses (Electron security checklist; docs/security.md). */
export const ENROLLA_FUSES = {
  runAsNode: false,
  enableCookieEncryption: true,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  grantFileProtocolExtraPrivileges: false,
};

async function readWhole(handle) {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(size);
  await handle.read(buffer, 0, size, 0);
  return buffer;
}

function wireAt(buffer, sentinel) {
  const start = sentinel + SENTINEL.length;
  const version = buffer[start];
  const length = buffer[start + 1];
  if (version !== 1) throw new Error(`Versión de fusibles desconocida en el binario de Electron: ${version}`);
  return { position: start + 2, bytes: buffer.subarray(start + 2, start + 2 + length) };
}

function sentinels(buffer) {
  const found = [];
  for (let i = buffer.indexOf(SENTINEL); i !== -1; i = buffer.indexOf(SENTINEL, i + 1)) found.push(i);
  return found;
}

/** Reads the fuses of a binary: { name: 'enabled' | 'disabled' | 'removed' }. */
export async function readFuses(binary) {
  const handle = await open(binary, 'r');
  try {
    const buffer = await readWhole(handle);
    const [first] = sentinels(buffer);
    if (first === undefined) throw new Error(`${binary} no contiene fusibles de Electron (¿es un binario de Electron ≥ 12?)`);
    const { bytes } = wireAt(buffer, first);
    const state = { [DISABLE]: 'disabled', [ENABLE]: 'enabled', [REMOVED]: 'removed' };
    return Object.fromEntries(FUSE_ORDER.slice(0, bytes.length).map((name, i) => [name, state[bytes[i]] ?? 'unknown']));
  } finally {
    await handle.close();
  }
}

/**
 * Sets the given fuses in place. Every fuse named must exist in the binary's wire: a fuse this
 * Electron does not have is an error, not a silent no-op, so a security setting is never lost.
 */
export async function flipFuses(binary, fuses) {
  const handle = await open(binary, 'r+');
  try {
    const buffer = await readWhole(handle);
    const found = sentinels(buffer);
    if (found.length === 0 || found.length > 2) {
      throw new Error(`${binary}: se esperaban 1 o 2 marcas de fusibles de Electron y hay ${found.length}`);
    }
    for (const sentinel of found) {
      const { position, bytes } = wireAt(buffer, sentinel);
      for (const [name, enabled] of Object.entries(fuses)) {
        const index = FUSE_ORDER.indexOf(name);
        if (index === -1) throw new Error(`Fusible desconocido: ${name}`);
        if (index >= bytes.length) throw new Error(`El binario de Electron no tiene el fusible ${name}`);
        if (bytes[index] === REMOVED) continue; // removed by this Electron: nothing to set
        bytes[index] = enabled ? ENABLE : DISABLE;
      }
      await handle.write(bytes, 0, bytes.length, position);
    }
    return found.length;
  } finally {
    await handle.close();
  }
}
