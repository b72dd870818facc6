import path from 'node:path';
import { loadConfig } from '../server/config/load.js';
import type { StationConfig } from '../server/config/schema.js';
import { startStation, type RunningStation } from '../server/station.js';
import { backupMenu } from './backup-menu.js';
import { BRIDGE_CHANNEL, type ConsoleBridge } from './bridge.js';
import { consoleTokenFor } from './console-token.js';
import type { ShellElectron, ShellWindow } from './electron-surface.js';
import { consoleWindowOptions, guardSession, guardWebContents, isBridgeRequestFromConsole } from './guards.js';
import { loadOrCreateHostDataKey } from './host-data-key.js';
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
  const stopThenQuit = (): void => {
    stopping ??= (station?.close() ?? Promise.resolve())
      .catch((error: unknown) => environment.stderr(`Enrolla no cerró la estación limpiamente: ${(error as Error).message}\n`))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  };
  app.on('window-all-closed', stopThenQuit);
  app.on('before-quit', (event) => {
    if (stopped || station === null) return;
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
    station = await startStation(config, { dataKey: dataKey.key });
    dataKey.finish();
    guardSession(electron.session.defaultSession, station.url);
    bridge = { baseUrl: station.url, token: consoleTokenFor(station, secrets) };
    window = new electron.BrowserWindow(consoleWindowOptions(path.join(environment.mainDir, 'preload.cjs'), !app.isPackaged));
    await window.loadURL(`${station.url}/`);
    const menu = [
      { role: 'fileMenu' as const },
      { role: 'editMenu' as const },
      backupMenu({ dialog: electron.dialog, station, dataDir: config.dataDir, key: dataKey.key, fleet: !!config.databaseUrl }),
      // No developer tools in the packaged app: no View menu either.
      ...(app.isPackaged ? [] : [{ role: 'viewMenu' as const }]),
      { role: 'windowMenu' as const },
    ];
    electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(menu));
    return { config, station, window };
  } catch (error) {
    const message = (error as Error).message;
    environment.stderr(`Enrolla no pudo iniciar: ${message}\n`);
    electron.dialog.showErrorBox('Enrolla no pudo iniciar', message);
    await station?.close().catch(() => undefined);
    app.exit(1);
    return null;
  }
}
