// Electron main process: starts the same station as `enrolla serve` and opens the console on it.
import { app, BrowserWindow, session } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config/load.js';
import { startStation, type RunningStation } from '../server/station.js';
import { BRIDGE_ARG_PREFIX, type ConsoleBridge } from './bridge.js';
import { consoleTokenFor } from './console-token.js';
import { allowPermission, isConsoleUrl, trustCertificate } from './security.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let station: RunningStation | null = null;

async function openWindow(running: RunningStation, bridge: ConsoleBridge): Promise<void> {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Enrolla',
    webPreferences: {
      preload: path.join(here, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      additionalArguments: [`${BRIDGE_ARG_PREFIX}${encodeURIComponent(JSON.stringify(bridge))}`],
    },
  });
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (event, url) => {
    if (!isConsoleUrl(url, running.url)) event.preventDefault();
  });
  await win.loadURL(`${running.url}/`);
}

async function start(): Promise<void> {
  const config = loadConfig({
    overrides: { dataDir: process.env.ENROLLA_DATA_DIR ?? path.join(app.getPath('userData'), 'station') },
  });
  station = await startStation(config);
  const running = station;
  // Trust exactly the station's own self-signed certificate, nothing else.
  app.on('certificate-error', (event, _contents, url, _error, certificate, callback) => {
    const ours = trustCertificate(url, certificate.fingerprint, running);
    if (ours) event.preventDefault();
    callback(ours);
  });
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(allowPermission(permission, contents.getURL(), running.url, details as { mediaTypes?: string[] }));
  });
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    allowPermission(permission, requestingOrigin, running.url),
  );
  await openWindow(station, { baseUrl: station.url, token: consoleTokenFor(station) });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.whenReady().then(start, (error: unknown) => {
    process.stderr.write(`Enrolla no pudo iniciar: ${(error as Error).message}\n`);
    app.exit(1);
  });
  app.on('window-all-closed', () => {
    void station?.close().finally(() => app.quit());
  });
}
