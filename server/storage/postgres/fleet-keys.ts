import type pg from 'pg';
import { open, SealError } from '../../crypto/index.js';
import { KEY_CHECK, keyCheckValue, type SampleKeys } from '../sample-codec.js';
import { StoreError } from '../store-error.js';

/**
 * The data keys one station holds for a shared gallery: its key and, during a rotation, the
 * previous one. The gallery, not the station, says which of them seals new values (the key that
 * opens its check value), so a fleet whose stations hold both keys switches all at once when the
 * check value changes (docs/fleet-gallery.md, key rotation). Values open with any key of the ring.
 */
export class FleetKeys implements SampleKeys {
  private writing: Buffer;
  /** The ring, the sealing key first: the order values are tried in (most open with the first). */
  private order: readonly Buffer[];

  constructor(private readonly ring: readonly Buffer[]) {
    this.writing = ring[0]!;
    this.order = ring;
  }

  /** The key new values are sealed with, as of the last check value read. */
  get sealing(): Buffer {
    return this.writing;
  }

  /** At start: the check value created with this station's key in a new gallery, then read. */
  async start(client: pg.ClientBase): Promise<void> {
    await client.query('INSERT INTO gallery_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      KEY_CHECK,
      keyCheckValue(this.ring[0]!),
    ]);
    await this.readCheck(client);
  }

  /**
   * Reads the gallery's check value and takes the ring's key that opens it as the sealing key;
   * refuses when none does. Writers call it under the fleet's write lock, as a rotation changes it.
   */
  async readCheck(client: pg.ClientBase): Promise<Buffer> {
    const { rows } = await client.query<{ value: Buffer }>('SELECT value FROM gallery_meta WHERE name = $1', [KEY_CHECK]);
    const key = this.ring.find((k) => opens(k, rows[0]!.value));
    if (!key) {
      throw new StoreError(
        'La clave de datos de esta estación no es la de la galería compartida: todas las estaciones de la flota usan la misma (ENROLLA_DATA_KEY, docs/fleet-gallery.md).',
        'unavailable',
      );
    }
    if (key !== this.writing) {
      this.writing = key;
      this.order = [key, ...this.ring.filter((k) => k !== key)];
    }
    return key;
  }

  /** Opens a value sealed with any key of the ring, the sealing key tried first. */
  open(blob: Uint8Array, associated: string): Buffer {
    let failure: unknown;
    for (const key of this.order) {
      try {
        return open(key, blob, associated);
      } catch (error) {
        if (!(error instanceof SealError)) throw error;
        failure = error;
      }
    }
    throw failure;
  }

  /** Whether `key` opens `blob` (a rotation skips the values already under the new key). */
  static opensWith(key: Buffer, blob: Buffer, associated: string): boolean {
    try {
      open(key, blob, associated);
      return true;
    } catch (error) {
      if (error instanceof SealError) return false;
      throw error;
    }
  }
}

function opens(key: Buffer, check: Buffer): boolean {
  return FleetKeys.opensWith(key, check, KEY_CHECK);
}
