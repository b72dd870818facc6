import path from 'node:path';
import {
  inspectDatabaseOffThread,
  keyOpensFile,
  readKeyFile,
  REPLACED_DIR,
  restoreDatabaseOffThread,
  replacedKeyName,
  StoreError,
  type DatabaseSummary,
  type RestoreResult,
} from '../server/storage/index.js';
import { DESKTOP_OPERATOR } from './backup-menu.js';
import type { ShellDialog } from './electron-surface.js';
import { replacedKeys, swapHostDataKey } from './host-data-key.js';
import type { SealedSecrets } from './secret-store.js';

export interface RestoreMenuDeps {
  dialog: ShellDialog;
  dataDir: string;
  /** The station's data key now. */
  key: Buffer;
  secrets: SealedSecrets;
  /** Persons in the station's gallery now, for the confirmation; null when its database does not open. */
  persons: () => Promise<number | null>;
  /**
   * Stops the station, runs `swap` on its data directory and starts it again, with the key
   * `swap` resolves to, or with the key it had when `swap` fails (then rethrows).
   */
  restartWith: (swap: () => Promise<Buffer>) => Promise<void>;
  now?: () => Date;
}

/**
 * The desktop's restore, for operators without a shell: the backup is checked before anything
 * stops, the key that opens it found (the station's, one a restore replaced, or an exported key
 * file the operator picks), the operator told what comes back and what goes aside, and only then
 * the station is stopped, its database swapped (the old one moved to `replaced/`, never deleted)
 * and started again. Same checks and audit as `enrolla restore` (docs/desktop.md, "Backups").
 */
export async function restoreBackup(deps: RestoreMenuDeps): Promise<void> {
  const { dialog } = deps;
  const { canceled, filePaths } = await dialog.showOpenDialog({
    title: 'Restaurar un respaldo',
    buttonLabel: 'Elegir respaldo',
    filters: [{ name: 'Respaldo de Enrolla', extensions: ['db'] }],
    properties: ['openFile'],
  });
  const file = filePaths[0];
  if (canceled || !file) return;
  try {
    const summary = await inspectDatabaseOffThread(file, deps.key);
    const key = summary.key === 'other-key' ? await keyForBackup(deps, file) : deps.key;
    if (key === null) return;
    if (!(await confirm(deps, file, summary, !key.equals(deps.key)))) return;
    const now = (deps.now ?? (() => new Date()))();
    let result: RestoreResult | null = null;
    await deps.restartWith(async () => {
      result = await swapHostDataKey(deps.secrets, deps.key, key, replacedKeyName(now), () =>
        restoreDatabaseOffThread(deps.dataDir, file, key, DESKTOP_OPERATOR, now),
      );
      return key;
    });
    const restored = result as RestoreResult | null;
    if (restored === null) return;
    await dialog.showMessageBox({
      type: 'info',
      title: 'Respaldo restaurado',
      message: `Respaldo restaurado: la estación tiene ${restored.persons} personas, ${restored.samples} muestras.`,
      detail: [
        restored.replaced ? `La base que había quedó en ${restored.replaced}.` : '',
        restored.revokedAgain ? `${restored.revokedAgain} tokens revocados después del respaldo siguen revocados.` : '',
      ]
        .filter(Boolean)
        .join(' '),
    });
  } catch (error) {
    dialog.showErrorBox('No se pudo restaurar el respaldo', (error as Error).message);
  }
}

/**
 * The key of a backup the station's own does not open: one kept when a restore replaced a
 * database (restoring it back), else an exported key file the operator picks. Null on Cancel.
 */
async function keyForBackup({ dialog, secrets }: RestoreMenuDeps, file: string): Promise<Buffer | null> {
  const kept = replacedKeys(secrets).find((k) => keyOpensFile(file, k) === true);
  if (kept) return kept;
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'El respaldo es de otra clave de datos',
    message: 'Este respaldo se cifró con otra clave de datos: elija el archivo de esa clave.',
    detail:
      'Es el archivo que se exportó con el menú Respaldo > Exportar la clave de datos en la computadora donde se hizo el respaldo.',
    buttons: ['Elegir la clave…', 'Cancelar'],
    defaultId: 0,
    cancelId: 1,
  });
  if (response !== 0) return null;
  const { canceled, filePaths } = await dialog.showOpenDialog({
    title: 'Clave de datos del respaldo',
    buttonLabel: 'Usar esta clave',
    properties: ['openFile'],
  });
  const keyPath = filePaths[0];
  if (canceled || !keyPath) return null;
  // Read once from wherever it was kept (a USB stick's file system has no owner-only mode); sealed after.
  const key = readKeyFile(keyPath, { ownerOnly: false });
  if (keyOpensFile(file, key) !== true) throw new Error(`La clave de ${keyPath} tampoco abre ${file}.`);
  return key;
}

async function confirm(deps: RestoreMenuDeps, file: string, backup: DatabaseSummary, newKey: boolean): Promise<boolean> {
  const now = await deps.persons();
  const { response } = await deps.dialog.showMessageBox({
    type: 'warning',
    title: 'Restaurar un respaldo',
    message:
      `¿Restaurar ${path.basename(file)}? Tiene ${backup.persons} personas y ${backup.samples} muestras` +
      (now === null ? '.' : `; la estación tiene ahora ${now} personas.`),
    detail: [
      'La estación inicia con el respaldo: lo enrolado después del respaldo no estará.',
      `La base actual no se borra: queda en ${path.join(deps.dataDir, REPLACED_DIR)}.`,
      newKey
        ? 'La estación pasa a usar la clave de datos del respaldo; la actual queda guardada en el llavero, con la base reemplazada.'
        : '',
    ]
      .filter(Boolean)
      .join(' '),
    buttons: ['Restaurar', 'Cancelar'],
    defaultId: 1,
    cancelId: 1,
  });
  return response === 0;
}

/**
 * Whether a station failed to start on its database itself: the store's refusal (damaged, sealed
 * with another key, of a newer schema), which a restore can mend.
 */
export function isDatabaseFailure(error: unknown): boolean {
  return error instanceof StoreError && error.kind === 'unavailable';
}
