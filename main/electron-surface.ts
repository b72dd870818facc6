/**
 * The part of Electron the shell uses, as narrow structural types. Electron's real modules
 * satisfy them (main.ts passes them in, checked by tsc); the unit tests pass fakes. Nothing
 * else in main/ imports 'electron', so the shell's logic runs and is tested under plain Node.
 */

export interface ShellWebContents {
  /** Unique per web contents: how an IPC sender is matched to the console window. */
  id: number;
  getURL(): string;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
}

export interface ShellWindow {
  webContents: ShellWebContents;
  loadURL(url: string): Promise<void>;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
}

export interface ShellWindowOptions {
  width: number;
  height: number;
  title: string;
  show?: boolean;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    experimentalFeatures: false;
    webviewTag: false;
    navigateOnDragDrop: false;
    spellcheck: false;
    devTools: boolean;
  };
}

export interface ShellSession {
  setPermissionRequestHandler(
    handler: (
      contents: { getURL(): string },
      permission: string,
      callback: (granted: boolean) => void,
      /** Electron's PermissionRequest variants; only media requests carry `mediaTypes`. */
      details: unknown,
    ) => void,
  ): void;
  setPermissionCheckHandler(
    handler: (contents: unknown, permission: string, requestingOrigin: string, details: unknown) => boolean,
  ): void;
  webRequest: {
    onBeforeRequest(listener: (details: { url: string }, callback: (response: { cancel: boolean }) => void) => void): void;
  };
}

/** Electron's safeStorage: OS-backed encryption (Keychain, DPAPI, libsecret/kwallet). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron; absent or unused elsewhere. */
  getSelectedStorageBackend?(): string;
}

export interface IpcEvent {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
  returnValue: unknown;
}

export interface ShellApp {
  isPackaged: boolean;
  requestSingleInstanceLock(): boolean;
  enableSandbox(): void;
  whenReady(): Promise<void>;
  getPath(name: 'userData'): string;
  quit(): void;
  exit(code?: number): void;
  on(event: 'second-instance' | 'window-all-closed', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: ShellWebContents) => void): unknown;
  on(
    event: 'certificate-error',
    listener: (
      event: { preventDefault(): void },
      contents: unknown,
      url: string,
      error: string,
      certificate: { fingerprint: string },
      callback: (trusted: boolean) => void,
    ) => void,
  ): unknown;
}

/** A menu entry, as Electron's MenuItemConstructorOptions take it (the fields the shell sets). */
export interface ShellMenuItem {
  label?: string;
  role?: 'fileMenu' | 'editMenu' | 'viewMenu' | 'windowMenu' | 'quit';
  type?: 'separator';
  submenu?: ShellMenuItem[];
  click?: () => void;
}

export interface ShellDialog {
  showErrorBox(title: string, content: string): void;
  showSaveDialog(options: {
    title: string;
    defaultPath: string;
    buttonLabel?: string;
    filters?: { name: string; extensions: string[] }[];
  }): Promise<{ canceled: boolean; filePath: string }>;
  showOpenDialog(options: {
    title: string;
    buttonLabel?: string;
    filters?: { name: string; extensions: string[] }[];
    properties: 'openFile'[];
  }): Promise<{ canceled: boolean; filePaths: string[] }>;
  showMessageBox(options: {
    type: 'info' | 'warning' | 'error';
    title: string;
    message: string;
    detail?: string;
    buttons?: string[];
    defaultId?: number;
    cancelId?: number;
  }): Promise<{ response: number }>;
}

export interface ShellElectron {
  app: ShellApp;
  BrowserWindow: new (options: ShellWindowOptions) => ShellWindow;
  session: { defaultSession: ShellSession };
  safeStorage: SafeStorageLike;
  ipcMain: { on(channel: string, listener: (event: IpcEvent) => void): unknown };
  dialog: ShellDialog;
  Menu: { buildFromTemplate(template: ShellMenuItem[]): unknown; setApplicationMenu(menu: unknown): void };
}
