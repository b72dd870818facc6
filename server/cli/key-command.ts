import path from 'node:path';
import { loadConfig } from '../config/index.js';
import {
  assertDatabaseNotInUse,
  DATA_KEY_ENV,
  DATABASE_FILE,
  dataKeyFromEnv,
  PREVIOUS_DATA_KEY_ENV,
  rotateDataKey,
  rotateFleetKeyAt,
} from '../storage/index.js';

export async function runKeyRotate(options: { dataDir?: string }): Promise<void> {
  const config = loadConfig({ overrides: { dataDir: options.dataDir } });
  if (config.databaseUrl) return rotateSharedGallery(config.databaseUrl);
  if (process.env[DATA_KEY_ENV]) {
    throw new Error(`la clave viene de ${DATA_KEY_ENV}: rótela en el gestor de secretos que la inyecta (docs/security.md)`);
  }
  // A running station would go on sealing with the old key what it writes after the rotation.
  assertDatabaseNotInUse(path.join(config.dataDir, DATABASE_FILE), 'rotar la clave');
  const { samples } = rotateDataKey(config.dataDir);
  process.stdout.write(`Clave de datos rotada: ${samples} muestras cifradas de nuevo. Respalde keys/data.key de nuevo.\n`);
}

/** The fleet's key, changed online: the new key in ENROLLA_DATA_KEY, the one in use in ENROLLA_DATA_KEY_PREVIOUS. */
async function rotateSharedGallery(url: string): Promise<void> {
  const to = dataKeyFromEnv(DATA_KEY_ENV);
  const from = dataKeyFromEnv(PREVIOUS_DATA_KEY_ENV);
  if (!to || !from) {
    throw new Error(
      `galería compartida: dé la clave nueva en ${DATA_KEY_ENV} y la actual en ${PREVIOUS_DATA_KEY_ENV}, como ya las tiene cada estación de la flota (docs/fleet-gallery.md)`,
    );
  }
  const { resealed, already } = await rotateFleetKeyAt(url, [to, from], to);
  process.stdout.write(
    `Galería compartida: la flota cifra ahora con la clave nueva; ${resealed} valores cifrados de nuevo, ${already} muestras ya lo estaban. Quite ${PREVIOUS_DATA_KEY_ENV} de cada estación.\n`,
  );
}
