import { loadConfig } from '../config/load.js';
import { DATA_KEY_ENV } from '../crypto/data-key.js';
import { rotateDataKey } from '../crypto/rotate-key.js';

export function runKeyRotate(options: { dataDir?: string }): void {
  if (process.env[DATA_KEY_ENV]) {
    throw new Error(`la clave viene de ${DATA_KEY_ENV}: rótela en el gestor de secretos que la inyecta (docs/security.md)`);
  }
  const config = loadConfig({ overrides: { dataDir: options.dataDir } });
  if (config.databaseUrl) {
    // The shared gallery is sealed with the fleet's key; re-sealing it here would lock out every other station.
    throw new Error(
      'esta estación usa una galería compartida (databaseUrl): la clave es de la flota, no se rota por estación (docs/fleet-gallery.md)',
    );
  }
  const { samples } = rotateDataKey(config.dataDir);
  process.stdout.write(`Clave de datos rotada: ${samples} muestras cifradas de nuevo. Respalde keys/data.key de nuevo.\n`);
}
