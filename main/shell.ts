import path from 'node:path';
import { loadConfig, type StationConfig } from '../server/config/index.js';
import { startStation, type RunningStation } from '../server/station/index.js';
import { backupMenu } from './backup-menu.js';
import { BRIDGE_CHANNEL, type ConsoleBridge } from './bridge.js';
import { consoleTokenFor } from './console-token.js';
import type { ShellElectron, ShellWindow } from './electron-surface.js';
import { consoleWindowOptions, guardSession, guardWebContents, isBridgeRequestFromConsole } from './guards.js';
import { loadOrCreateHostDataKey } from './host-data-key.js';
import { isDatabaseFailure, restoreBackup } from './restore-menu.js';
import { assertProtectedStorage, SealedSecrets } from './secret-store.js';
import { trustCertificate } from './security.js';

export interface ShellEnvironment {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Electron's process.resourcesPath: where the packaged app's extraResources (models/) are. */
  resourcesPath: string | undefined;
  /** The directory of the built main process, where preload.cjs sits. */
  mainDir: string;
  stderr: (text: string) => void;
}

export interface RunningShell {
  config: StationConfig;
  station: RunningStation;
  window: ShellWindow;
}

/**
 * The desktop shell: one instance, the same station as `enrolla serve` with its data key and
 * console token kept by safeStorage, and one sandboxed window on the station's console. Resolves
 * with what it started, or null when it did not (second instance, or a start error shown to
 * the operator).
 */
export async function runShell(electron: ShellElectron, environment: ShellEnvironment): Promise<RunningShell | null> {
  const { app } = electron;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  app.enableSandbox();
  let station: RunningStation | null = null;
  let window: ShellWindow | null = null;
  let bridge: ConsoleBridge | null = null;
  const stationUrl = (): string | null => station?.url ?? null;

  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, stationUrl));
  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });
  // Every way out stops the station first (its snapshot saved, its engines' workers ended): closing
  // the window, and a quit from the menu or the system (Ctrl+Q, logging out), which Electron would
  // otherwise carry through without waiting for the close, so the next start would replay the journal.
  let stopped = false;
  let stopping: Promise<void> | null = null;
  // A restore stops and starts the station: a quit meanwhile waits for it, then stops what it left.
  let restarting: Promise<void> | null = null;
  const stopThenQuit = (): void => {
    stopping ??= (restarting ?? Promise.resolve())
      .then(() => station?.close())
      .catch((error: unknown) => environment.stderr(`Enrolla no cerró la estación limpiamente: ${(error as Error).message}\n`))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  };
  app.on('window-all-closed', stopThenQuit);
  app.on('before-quit', (event) => {
    if (stopped || (station === null && restarting === null)) return;
    event.preventDefault();
    stopThenQuit();
  });
  // Trust exactly the station's own self-signed certificate, nothing else.
  app.on('certificate-error', (event, _contents, url, _error, certificate, callback) => {
    const ours = station !== null && trustCertificate(url, certificate.fingerprint, station);
    if (ours) event.preventDefault();
    callback(ours);
  });
  electron.ipcMain.on(BRIDGE_CHANNEL, (event) => {
    const url = stationUrl();
    const allowed = window !== null && url !== null && isBridgeRequestFromConsole(event, window.webContents, url);
    event.returnValue = allowed ? bridge : null;
  });

  await app.whenReady();
  const fail = async (title: string, error: unknown, shown = false): Promise<null> => {
    const message = (error as Error).message;
    environment.stderr(`${title}: ${message}\n`);
    if (!shown) electron.dialog.showErrorBox(title, message);
    await station?.close().catch(() => undefined);
    app.exit(1);
    return null;
  };
  const offerRestore = async (error: unknown): Promise<boolean> => {
    const { response } = await electron.dialog.showMessageBox({
      type: 'error',
      title: 'Enrolla no pudo iniciar',
      message: (error as Error).message,
      detail:
        'La base de datos de la estación no se pudo abrir. Puede restaurar un respaldo: la base actual no se borra, queda en la carpeta replaced/.',
      buttons: ['Salir', 'Restaurar un respaldo…'],
      defaultId: 0,
      cancelId: 0,
    });
    return response === 1;
  };
  try {
    const loaded = loadConfig({
      env: environment.env,
      overrides: { dataDir: environment.env.ENROLLA_DATA_DIR ?? path.join(app.getPath('userData'), 'station') },
    });
    // Packaged, the models are extraResources beside app.asar, not inside the package.
    const modelsDir = app.isPackaged && environment.resourcesPath ? path.join(environment.resourcesPath, 'models') : undefined;
    const config = loaded.modelsDir === undefined && modelsDir ? { ...loaded, modelsDir } : loaded;
    assertProtectedStorage(electron.safeStorage, environment.platform, environment.env);
    const secrets = new SealedSecrets(path.join(config.dataDir, 'keys'), electron.safeStorage);
    const dataKey = loadOrCreateHostDataKey(secrets, config.dataDir);
    let key = dataKey.key;
    // A station whose database does not open (damaged, or sealed with a key this keyring lost) is
    // offered a restore from a backup, which is what the Respaldo menu could not offer then.
    for (;;) {
      try {
        station = await startStation(config, { dataKey: key });
        break;
      } catch (error) {
        if (!isDatabaseFailure(error) || !(await offerRestore(error))) return fail('Enrolla no pudo iniciar', error, true);
        await restoreBackup({
          dialog: electron.dialog,
          dataDir: config.dataDir,
          key,
          secrets,
          persons: () => Promise.resolve(null),
          // Nothing runs yet: the loop starts the station on the restored database.
          restartWith: async (swap) => void (key = await swap()),
        });
      }
    }
    dataKey.finish();
    guardSession(electron.session.defaultSession, stationUrl);
    const consoleWindow = new electron.BrowserWindow(
      consoleWindowOptions(path.join(environment.mainDir, 'preload.cjs'), !app.isPackaged),
    );
    window = consoleWindow;

    // Stop, swap the data directory's database, start again: the desktop's restore (restore-menu.ts).
    const restartWith = async (swap: () => Promise<Buffer>): Promise<void> => {
      if (restarting || stopping) throw new Error('La estación ya se está deteniendo: espere a que termine.');
      let failure: unknown = null;
      const run = async (): Promise<void> => {
        const old = station!;
        station = null;
        bridge = null;
        // A station that did not close cleanly still holds its database: the swap's own check refuses then.
        await old
          .close()
          .catch((error: unknown) =>
            environment.stderr(`Enrolla no cerró la estación limpiamente: ${(error as Error).message}\n`),
          );
        try {
          key = await swap();
        } catch (error) {
          failure = error;
        }
        if (stopping) return;
        try {
          station = await startStation(config, { dataKey: key });
          await attach(station);
        } catch (error) {
          await fail('Enrolla no pudo volver a iniciar', error);
        }
      };
      restarting = run().finally(() => (restarting = null));
      await restarting;
      if (failure) throw failure;
    };

    // The console (and its token, and the menu with the current key) on the station now running.
    const attach = async (running: RunningStation): Promise<void> => {
      bridge = { baseUrl: running.url, token: consoleTokenFor(running, secrets) };
      const fleet = !!config.databaseUrl;
      const restore = (): void =>
        void restoreBackup({
          dialog: electron.dialog,
          dataDir: config.dataDir,
          key,
          secrets,
          persons: () => running.store.gallery.countPersons(),
          restartWith,
        });
      const menu = [
        { role: 'fileMenu' as const },
        { role: 'editMenu' as const },
        backupMenu({ dialog: electron.dialog, station: running, dataDir: config.dataDir, key, fleet, restore }),
        // No developer tools in the packaged app: no View menu either.
        ...(app.isPackaged ? [] : [{ role: 'viewMenu' as const }]),
        { role: 'windowMenu' as const },
      ];
      electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(menu));
      await consoleWindow.loadURL(`${running.url}/`);
    };
    await attach(station);
    return {
      config,
      // The station running now: a restore replaces it.
      get station() {
        return station!;
      },
      window: consoleWindow,
    };
  } catch (error) {
    return fail('Enrolla no pudo iniciar', error);
  }
}
