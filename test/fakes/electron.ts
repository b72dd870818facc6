// Fakes for the Electron modules the shell uses (main/electron-surface.ts): plain event
// emitters that record what the shell asked for, so tests can drive and inspect it.
import { EventEmitter } from 'node:events';
import type {
  IpcEvent,
  SafeStorageLike,
  ShellElectron,
  ShellMenuItem,
  ShellSession,
  ShellWebContents,
  ShellWindowOptions,
} from '../../main/electron-surface.js';

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  url = '';
  openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  getURL(): string {
    return this.url;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler;
  }
  /** Emits a navigation-like event and says whether a listener prevented it. */
  attempt(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url = ''): boolean {
    let prevented = false;
    this.emit(event, { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

export class FakeSession implements ShellSession {
  requestHandler: Parameters<ShellSession['setPermissionRequestHandler']>[0] | null = null;
  checkHandler: Parameters<ShellSession['setPermissionCheckHandler']>[0] | null = null;
  beforeRequest: Parameters<ShellSession['webRequest']['onBeforeRequest']>[0] | null = null;
  webRequest = {
    onBeforeRequest: (listener: NonNullable<FakeSession['beforeRequest']>) => {
      this.beforeRequest = listener;
    },
  };
  setPermissionRequestHandler(handler: NonNullable<FakeSession['requestHandler']>): void {
    this.requestHandler = handler;
  }
  setPermissionCheckHandler(handler: NonNullable<FakeSession['checkHandler']>): void {
    this.checkHandler = handler;
  }
  /** What the request handler answers for a permission asked from `url`. */
  request(permission: string, url: string, details: unknown = {}): boolean {
    let granted: boolean | null = null;
    this.requestHandler!({ getURL: () => url }, permission, (g) => (granted = g), details);
    return granted!;
  }
  /** Whether the request filter cancels `url`. */
  cancels(url: string): boolean {
    let cancel: boolean | null = null;
    this.beforeRequest!({ url }, (r) => (cancel = r.cancel));
    return cancel!;
  }
}

/**
 * safeStorage stand-in: a reversible scramble with a per-keyring secret and a header, so sealed
 * files are not plaintext and a blob from another "keyring" fails to decrypt, as it would.
 */
export class FakeSafeStorage implements SafeStorageLike {
  constructor(
    public backend = 'gnome_libsecret',
    public available = true,
    private readonly keyring = 'llavero-de-prueba',
  ) {}
  isEncryptionAvailable(): boolean {
    return this.available;
  }
  getSelectedStorageBackend(): string {
    return this.backend;
  }
  encryptString(plainText: string): Buffer {
    return Buffer.concat([Buffer.from(`v11:${this.keyring}:`), this.scramble(Buffer.from(plainText, 'utf8'))]);
  }
  decryptString(encrypted: Buffer): string {
    const header = Buffer.from(`v11:${this.keyring}:`);
    if (!encrypted.subarray(0, header.length).equals(header)) throw new Error('Error while decrypting the ciphertext');
    return this.scramble(encrypted.subarray(header.length)).toString('utf8');
  }
  private scramble(data: Buffer): Buffer {
    const pad = Buffer.from(this.keyring);
    return Buffer.from(data.map((b, i) => b ^ pad[i % pad.length]! ^ 0x5a));
  }
}

export interface FakeElectron extends ShellElectron {
  app: FakeApp;
  windows: FakeWindow[];
  session: { defaultSession: FakeSession };
  safeStorage: FakeSafeStorage;
  ipcMain: EventEmitter;
  errors: { title: string; content: string }[];
  /** The application menu set, as its template. */
  menu: ShellMenuItem[] | null;
  /** What the next save and open dialogs answer (a path, or null for Cancel), in order; and the next message boxes' buttons. */
  saveAnswers: (string | null)[];
  openAnswers: (string | null)[];
  messageAnswers: number[];
  /** Every message box shown. */
  messages: { type: string; title: string; message: string }[];
  /** Sends the bridge request as a frame would, and returns the main process's answer. */
  askBridge(channel: string, from: { sender: { id: number }; url: string; parent?: unknown }): unknown;
}

export class FakeApp extends EventEmitter {
  isPackaged = false;
  sandboxed = false;
  quitCalls = 0;
  exitCode: number | null = null;
  constructor(
    private readonly userData: string,
    private readonly lock = true,
  ) {
    super();
  }
  requestSingleInstanceLock(): boolean {
    return this.lock;
  }
  enableSandbox(): void {
    this.sandboxed = true;
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
  getPath(_name: 'userData'): string {
    return this.userData;
  }
  quit(): void {
    this.quitCalls++;
  }
  exit(code = 0): void {
    this.exitCode = code;
  }
}

export class FakeWindow {
  readonly webContents = new FakeWebContents();
  loaded: string[] = [];
  focused = 0;
  minimized = false;
  constructor(readonly options: ShellWindowOptions) {}
  async loadURL(url: string): Promise<void> {
    this.webContents.url = url;
    this.loaded.push(url);
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  focus(): void {
    this.focused++;
  }
}

export function fakeElectron(options: { userData: string; lock?: boolean; safeStorage?: FakeSafeStorage }): FakeElectron {
  const app = new FakeApp(options.userData, options.lock ?? true);
  const windows: FakeWindow[] = [];
  const ipcMain = new EventEmitter();
  const errors: { title: string; content: string }[] = [];
  class BrowserWindow extends FakeWindow {
    constructor(windowOptions: ShellWindowOptions) {
      super(windowOptions);
      windows.push(this);
      // As Electron does for every new web contents.
      app.emit('web-contents-created', {}, this.webContents satisfies ShellWebContents);
    }
  }
  const fake: FakeElectron = {
    app,
    BrowserWindow,
    windows,
    session: { defaultSession: new FakeSession() },
    safeStorage: options.safeStorage ?? new FakeSafeStorage(),
    ipcMain,
    dialog: {
      showErrorBox: (title: string, content: string) => void errors.push({ title, content }),
      showSaveDialog: async () => {
        const answer = fake.saveAnswers.shift() ?? null;
        return { canceled: answer === null, filePath: answer ?? '' };
      },
      showOpenDialog: async () => {
        const answer = fake.openAnswers.shift() ?? null;
        return { canceled: answer === null, filePaths: answer === null ? [] : [answer] };
      },
      showMessageBox: async (box) => {
        fake.messages.push({ type: box.type, title: box.title, message: box.message });
        return { response: fake.messageAnswers.shift() ?? 0 };
      },
    },
    errors,
    menu: null,
    saveAnswers: [],
    openAnswers: [],
    messageAnswers: [],
    messages: [],
    Menu: {
      buildFromTemplate: (template: ShellMenuItem[]) => template,
      setApplicationMenu: (menu: unknown) => void (fake.menu = menu as ShellMenuItem[]),
    },
    askBridge(channel, from) {
      const event: IpcEvent = {
        sender: from.sender,
        senderFrame: { url: from.url, parent: from.parent ?? null },
        returnValue: undefined,
      };
      ipcMain.emit(channel, event);
      return event.returnValue;
    },
  };
  return fake;
}
