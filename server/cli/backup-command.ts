import path from 'node:path';
import { loadConfig } from '../config/index.js';
import {
  appendLocalAudit,
  backupDatabase,
  DATA_KEY_ENV,
  DATABASE_FILE,
  type DatabaseSummary,
  loadDataKey,
  readKeyFile,
  restoreDatabase,
  restoreWithKeyFile,
  stampedName,
} from '../storage/index.js';

/** Backups and restores are of a station's own SQLite file; a fleet's gallery is PostgreSQL's to back up. */
function sqliteStation(options: { dataDir?: string }) {
  const config = loadConfig({ overrides: { dataDir: options.dataDir } });
  if (config.databaseUrl)
    throw new Error(
      'la galería es compartida en PostgreSQL: respáldela con las herramientas de PostgreSQL, pg_dump (docs/fleet-gallery.md)',
    );
  return { dataDir: config.dataDir, key: loadDataKey(config.dataDir) };
}

const held = (s: DatabaseSummary) =>
  `${s.persons} personas, ${s.samples} muestras, ${s.tokens} tokens, ${s.auditEntries} entradas de auditoría`;

const keyNote: Record<DatabaseSummary['key'], string> = {
  opens: 'La clave de datos de la estación la abre.',
  'other-key': 'La clave de datos de la estación NO la abre.',
  'not-checked':
    'No se comprobó la clave de datos (no está en keys/data.key ni en ENROLLA_DATA_KEY): la estación no arrancará si el respaldo es de otra clave (désela con --key).',
};

export async function runBackup(options: { dataDir?: string; out?: string }): Promise<void> {
  const { dataDir, key } = sqliteStation(options);
  const out = path.resolve(options.out ?? path.join(dataDir, 'backups', stampedName('enrolla', new Date())));
  const summary = await backupDatabase(dataDir, out, key);
  // Who copied the biometric database, and when, stays in the station's own audit log.
  let audited = '';
  try {
    appendLocalAudit(path.join(dataDir, DATABASE_FILE), 'createBackup');
  } catch (error) {
    audited = `No se pudo anotar el respaldo en la auditoría de la estación: ${(error as Error).message}\n`;
  }
  process.stdout.write(
    `Respaldo escrito en ${out} (${held(summary)}). ${keyNote[summary.key]}\n` +
      'Las muestras siguen cifradas con la clave de datos: guarde el respaldo fuera de esta máquina y la clave aparte (docs/security.md).\n' +
      audited,
  );
}

export function runRestore(file: string, options: { dataDir?: string; key?: string }): void {
  const { dataDir, key } = sqliteStation(options);
  const backup = path.resolve(file);
  if (options.key && process.env[DATA_KEY_ENV])
    throw new Error(
      `la clave de la estación viene de ${DATA_KEY_ENV}: ponga allí la clave del respaldo, en el gestor de secretos que la inyecta, en lugar de --key`,
    );
  // An exported key is read once from where it was carried (a USB stick's FAT has no modes).
  const result = process.env[DATA_KEY_ENV]
    ? { ...restoreDatabase(dataDir, backup, key), keyChanged: false, keptKey: null }
    : restoreWithKeyFile(dataDir, backup, options.key ? readKeyFile(path.resolve(options.key), { ownerOnly: false }) : null);
  process.stdout.write(
    `Respaldo restaurado en ${dataDir} (${held(result)}). ${result.keyChanged ? '' : `${keyNote[result.key]}\n`}` +
      (result.keyChanged
        ? `La clave del respaldo es ahora la clave de datos de la estación (keys/data.key): guarde una copia fuera de esta máquina.\n`
        : '') +
      (result.replaced ? `La base que había quedó en ${result.replaced}.\n` : '') +
      (result.keptKey ? `La clave que la cifraba quedó en ${result.keptKey}.\n` : '') +
      (result.revokedAgain ? `${result.revokedAgain} tokens revocados después del respaldo siguen revocados.\n` : '') +
      'Inicie la estación: reconstruye su índice 1:N a partir de la base restaurada.\n',
  );
}
