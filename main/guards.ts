import type { IpcEvent, ShellSession, ShellWebContents, ShellWindowOptions } from './electron-surface.js';
import { allowPermission, allowRequest, isConsoleUrl } from './security.js';

/** The console window's preferences: the Electron security checklist's defaults, spelled out. */
export function consoleWindowOptions(preload: string, devTools: boolean): ShellWindowOptions {
  return {
    width: 1280,
    height: 860,
    title: 'Enrolla',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools,
    },
  };
}

/**
 * Every web contents the app creates (the window, and anything a page might open): no new
 * windows, no navigation or redirect away from the station, no <webview>.
 */
export function guardWebContents(contents: ShellWebContents, stationUrl: () => string | null): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  const stayHome = (event: { preventDefault(): void }, url: string): void => {
    const station = stationUrl();
    if (station === null || !isConsoleUrl(url, station)) event.preventDefault();
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-redirect', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * The session's gates: the camera (video only) for the console's origin through both the
 * request and the check handlers; every request to anything but the station cancelled.
 */
export function guardSession(session: ShellSession, stationUrl: () => string | null): void {
  // While the station restarts (a restore) there is none: nothing is allowed.
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    const url = stationUrl();
    callback(url !== null && allowPermission(permission, contents.getURL(), url, details as { mediaTypes?: string[] }));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => {
    const url = stationUrl();
    return url !== null && allowPermission(permission, requestingOrigin, url);
  });
  session.webRequest.onBeforeRequest((details, callback) => {
    const url = stationUrl();
    callback({ cancel: url === null || !allowRequest(details.url, url) });
  });
}

/** The bridge answers only the console window's main frame, on the station's origin. */
export function isBridgeRequestFromConsole(event: IpcEvent, consoleContents: { id: number }, stationUrl: string): boolean {
  const frame = event.senderFrame;
  return event.sender.id === consoleContents.id && frame !== null && frame.parent === null && isConsoleUrl(frame.url, stationUrl);
}
