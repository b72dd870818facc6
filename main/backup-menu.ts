import type { RunningStation } from '../server/station/index.js';
import { backupDatabaseOffThread, localAuditEntry, stampedName, writeKeyFile } from '../server/storage/index.js';
import type { ShellDialog, ShellMenuItem } from './electron-surface.js';

/** Who did it, in the audit log, when it was the operator at this desktop (no token, no HTTP request). */
export const DESKTOP_OPERATOR = 'escritorio';

export interface BackupMenuDeps {
  dialog: ShellDialog;
  station: RunningStation;
  dataDir: string;
  /** The station's data key, which only this process can unseal (safeStorage). */
  key: Buffer;
  /** A fleet's gallery is PostgreSQL's to back up and restore: then the menu only exports the key. */
  fleet?: boolean;
  /** The desktop's restore (restore-menu.ts), which stops and starts the station. */
  restore?: () => void;
  now?: () => Date;
}

/**
 * The desktop's Respaldo menu. A desktop station's key lives in the OS keyring, bound to this
 * computer's account: a backup is of use after a lost computer only with the key exported too,
 * which only the desktop can do (docs/desktop.md, "Backups").
 */
export function backupMenu(deps: BackupMenuDeps): ShellMenuItem {
  return {
    label: 'Respaldo',
    submenu: [
      ...(deps.fleet ? [] : [{ label: 'Crear respaldo de la base…', click: () => void createBackup(deps) }]),
      { label: 'Exportar la clave de datos…', click: () => void exportDataKey(deps) },
      ...(deps.fleet || !deps.restore
        ? []
        : [{ type: 'separator' as const }, { label: 'Restaurar un respaldo…', click: deps.restore }]),
    ],
  };
}

export async function createBackup({ dialog, station, dataDir, key, now = () => new Date() }: BackupMenuDeps): Promise<void> {
  const { canceled, filePath } = await dialog.showSaveDialog({
    title: 'Crear respaldo de la estación',
    defaultPath: stampedName('enrolla', now()),
    buttonLabel: 'Crear respaldo',
    filters: [{ name: 'Respaldo de Enrolla', extensions: ['db'] }],
  });
  if (canceled || !filePath) return;
  try {
    // Off the main process's thread: the window stays responsive while a large gallery is copied.
    const s = await backupDatabaseOffThread(dataDir, filePath, key);
    audit(station, 'createBackup', now());
    await dialog.showMessageBox({
      type: 'info',
      title: 'Respaldo creado',
      message: `Respaldo escrito en ${filePath}: ${s.persons} personas, ${s.samples} muestras.`,
      detail:
        'Guárdelo fuera de esta computadora. Las muestras siguen cifradas: sin la clave de datos no se pueden leer, ' +
        'así que exporte también la clave (menú Respaldo) y guárdela aparte del respaldo.',
    });
  } catch (error) {
    dialog.showErrorBox('No se pudo crear el respaldo', (error as Error).message);
  }
}

export async function exportDataKey({ dialog, station, key, now = () => new Date() }: BackupMenuDeps): Promise<void> {
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'Exportar la clave de datos',
    message: 'Quien tenga esta clave y un respaldo de la base puede leer los datos biométricos.',
    detail:
      'Guárdela en un medio aparte de los respaldos, bajo llave. En una computadora nueva, póngala como keys/data.key ' +
      'en el directorio de datos de la estación antes de su primer inicio: la estación la toma en su llavero y abre los respaldos.',
    buttons: ['Exportar', 'Cancelar'],
    defaultId: 1,
    cancelId: 1,
  });
  if (response !== 0) return;
  const { canceled, filePath } = await dialog.showSaveDialog({
    title: 'Exportar la clave de datos',
    defaultPath: 'data.key',
    buttonLabel: 'Exportar',
  });
  if (canceled || !filePath) return;
  try {
    // The key file's own format (base64, owner-only): what a headless station or a restore reads.
    writeKeyFile(filePath, key);
    audit(station, 'exportDataKey', now());
    await dialog.showMessageBox({ type: 'info', title: 'Clave exportada', message: `Clave de datos escrita en ${filePath}.` });
  } catch (error) {
    dialog.showErrorBox('No se pudo exportar la clave', (error as Error).message);
  }
}

function audit(station: RunningStation, operation: string, at: Date): void {
  station.store.records.appendAudit(localAuditEntry(operation, DESKTOP_OPERATOR, 'SUCCESS', at));
}
