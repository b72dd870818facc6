import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClient } from '../e2e/helpers/https-client.js';
import { loadConfig } from '../server/config/index.js';
import { createLogger } from '../server/log/index.js';
import { startStation } from '../server/station/index.js';
import { inspectDatabase, keyFile } from '../server/storage/index.js';
import { fakeElectron, FakeSafeStorage, type FakeElectron } from '../test/fakes/electron.js';
import { BRIDGE_CHANNEL, type ConsoleBridge } from './bridge.js';
import { CONSOLE_TOKEN_NAME, CONSOLE_TOKEN_SECRET } from './console-token.js';
import { DATA_KEY_SECRET } from './host-data-key.js';
import { electronFingerprint } from './security.js';
import { runShell, type RunningShell, type ShellEnvironment } from './shell.js';

// The engines are off: these tests are about the shell, and the station starts in a second.
const NO_ENGINES = { engines: { face: { enabled: false }, document: { enabled: false } }, logLevel: 'silent', port: 0 };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function userDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-shell-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'station'), { recursive: true });
  writeFileSync(path.join(dir, 'station', 'config.json'), JSON.stringify(NO_ENGINES));
  return dir;
}

function environment(env: NodeJS.ProcessEnv = {}): ShellEnvironment & { errText: string[] } {
  const errText: string[] = [];
  return {
    env,
    platform: 'linux',
    resourcesPath: '/opt/Enrolla/resources',
    mainDir: '/opt/Enrolla/resources/app.asar/dist/main',
    stderr: (t) => void errText.push(t),
    errText,
  };
}

async function start(electron: FakeElectron, env?: NodeJS.ProcessEnv): Promise<RunningShell> {
  const shell = await runShell(electron, environment(env));
  expect(electron.errors).toEqual([]);
  expect(shell).not.toBeNull();
  cleanups.push(() => shell!.station.close());
  return shell!;
}

describe('desktop shell (Electron faked, real station)', () => {
  it('opens one sandboxed, isolated window on the station’s console', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station } = await start(electron);
    expect(electron.app.sandboxed).toBe(true);
    expect(electron.windows).toHaveLength(1);
    expect(electron.windows[0]!.loaded).toEqual([`${station.url}/`]);
    expect(station.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const prefs = electron.windows[0]!.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: true, // unpackaged only
    });
    expect(prefs.preload).toBe('/opt/Enrolla/resources/app.asar/dist/main/preload.cjs');
  });

  // The station serves dist/renderer: run `npm run build` first (npm test does).
  it('loads a console served with the station’s strict CSP, and the bridge token works on the API', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station, window } = await start(electron);
    const send = makeClient(station.url, readFileSync(path.join(dataDirOf(electron), 'tls', 'station-cert.pem'), 'utf8'));
    const page = await send(new URL(electron.windows[0]!.loaded[0]!).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:\/\//); // no remote source allowed
    const bridge = electron.askBridge(BRIDGE_CHANNEL, { sender: window.webContents, url: station.url }) as ConsoleBridge;
    const status = await send('/biometria/admin/estado-estacion', {
      method: 'POST',
      headers: { Authorization: `Bearer ${bridge.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(status.json<{ success: boolean }>().success).toBe(true);
  });

  it('hands the bridge to the console window’s main frame only', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station, window } = await start(electron);
    const answer = electron.askBridge(BRIDGE_CHANNEL, { sender: window.webContents, url: `${station.url}/#/galeria` });
    const bridge = answer as ConsoleBridge;
    expect(bridge.baseUrl).toBe(station.url);
    const auth = station.tokens.authenticate(`Bearer ${bridge.token}`);
    expect(auth.ok && auth.token.name).toBe(CONSOLE_TOKEN_NAME);
    expect(auth.ok && auth.token.scopes).toContain('admin');
    // Another page in the window, another web contents, or a subframe of the console: nothing.
    expect(electron.askBridge(BRIDGE_CHANNEL, { sender: window.webContents, url: 'https://evil.example/' })).toBeNull();
    const other = { id: window.webContents.id + 1000 };
    expect(electron.askBridge(BRIDGE_CHANNEL, { sender: other, url: `${station.url}/` })).toBeNull();
    expect(electron.askBridge(BRIDGE_CHANNEL, { sender: window.webContents, url: `${station.url}/`, parent: {} })).toBeNull();
  });

  it('blocks new windows, navigation away, webviews and any request off the station', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station, window } = await start(electron);
    const contents = electron.windows[0]!.webContents;
    expect(contents).toBe(window.webContents);
    expect(contents.openHandler!({ url: `${station.url}/` })).toEqual({ action: 'deny' });
    expect(contents.attempt('will-navigate', `${station.url}/#/verificar`)).toBe(false);
    expect(contents.attempt('will-navigate', 'https://example.com/')).toBe(true);
    expect(contents.attempt('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.attempt('will-redirect', 'http://10.0.0.1/')).toBe(true);
    expect(contents.attempt('will-attach-webview')).toBe(true);
    const session = electron.session.defaultSession;
    expect(session.cancels(`${station.url}/assets/index.js`)).toBe(false);
    expect(session.cancels(`${station.url}/biometria/enrolar-UI`)).toBe(false);
    expect(session.cancels('blob:https://127.0.0.1/abc')).toBe(false);
    expect(session.cancels('https://cdn.jsdelivr.net/npm/@vladmandic/human/models/x.json')).toBe(true);
    expect(session.cancels('file:///etc/passwd')).toBe(true);
    expect(session.cancels(station.url.replace('https:', 'http:'))).toBe(true);
  });

  it('grants the camera to the console through both handlers, and nothing else', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station } = await start(electron);
    const session = electron.session.defaultSession;
    expect(session.request('media', `${station.url}/`, { mediaTypes: ['video'] })).toBe(true);
    expect(session.request('media', `${station.url}/`, { mediaTypes: ['audio'] })).toBe(false);
    expect(session.request('media', 'https://evil.example/', { mediaTypes: ['video'] })).toBe(false);
    expect(session.request('geolocation', `${station.url}/`)).toBe(false);
    expect(session.checkHandler!({}, 'media', station.url, {})).toBe(true);
    expect(session.checkHandler!({}, 'media', 'https://evil.example', {})).toBe(false);
    expect(session.checkHandler!({}, 'notifications', station.url, {})).toBe(false);
  });

  it('trusts the station’s own certificate only', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station } = await start(electron);
    const certificateError = (url: string, fingerprint: string): { trusted: boolean; prevented: boolean } => {
      let prevented = false;
      let trusted = false;
      electron.app.emit(
        'certificate-error',
        { preventDefault: () => (prevented = true) },
        {},
        url,
        'net::ERR_CERT_AUTHORITY_INVALID',
        { fingerprint },
        (t: boolean) => (trusted = t),
      );
      return { trusted, prevented };
    };
    const pem = readFileSync(path.join(dataDirOf(electron), 'tls', 'station-cert.pem'), 'utf8');
    const ours = electronFingerprint(new X509Certificate(pem).fingerprint256);
    expect(certificateError(`${station.url}/`, ours)).toEqual({ trusted: true, prevented: true });
    expect(certificateError(`${station.url}/`, 'sha256/AAAA')).toEqual({ trusted: false, prevented: false });
    expect(certificateError('https://example.com/', ours)).toEqual({ trusted: false, prevented: false });
  });

  it('keeps the data key and the console token sealed, and reuses both at the next start', async () => {
    const userData = userDataDir();
    const first = fakeElectron({ userData });
    const one = await start(first);
    const token = (first.askBridge(BRIDGE_CHANNEL, { sender: one.window.webContents, url: one.station.url }) as ConsoleBridge)
      .token;
    const enrolled = await one.station.gallery.enroll(
      '27123456',
      [{ modelId: 'm', embedding: new Float32Array(4).fill(0.5), quality: 70, thumbnail: null }],
      { replace: false },
    );
    expect(enrolled).toBeTruthy();
    await one.station.close();
    const keys = path.join(userData, 'station', 'keys');
    expect(existsSync(path.join(keys, `${DATA_KEY_SECRET}.sealed`))).toBe(true);
    expect(readFileSync(path.join(keys, `${CONSOLE_TOKEN_SECRET}.sealed`)).includes(token)).toBe(false);
    expect(existsSync(keyFile(path.join(userData, 'station')))).toBe(false);

    const second = fakeElectron({ userData });
    const two = await start(second);
    // The same key opened the sealed database (the station checks it at start) and the person is there.
    expect(await two.station.gallery.getPerson('27123456')).toBeTruthy();
    const again = (second.askBridge(BRIDGE_CHANNEL, { sender: two.window.webContents, url: two.station.url }) as ConsoleBridge)
      .token;
    expect(again).toBe(token);
    const live = two.station.tokens.list().filter((t) => t.name === CONSOLE_TOKEN_NAME && t.revokedAt === null);
    expect(live).toHaveLength(1);
  });

  it('issues a new console token, revoking the old, when the kept one was revoked', async () => {
    const userData = userDataDir();
    const first = fakeElectron({ userData });
    const one = await start(first);
    const old = one.station.tokens.list().find((t) => t.name === CONSOLE_TOKEN_NAME)!;
    one.station.tokens.revoke(old.id);
    await one.station.close();
    const second = fakeElectron({ userData });
    const two = await start(second);
    const bridge = second.askBridge(BRIDGE_CHANNEL, { sender: two.window.webContents, url: two.station.url }) as ConsoleBridge;
    expect(two.station.tokens.authenticate(`Bearer ${bridge.token}`).ok).toBe(true);
    expect(two.station.tokens.list().filter((t) => t.name === CONSOLE_TOKEN_NAME && t.revokedAt === null)).toHaveLength(1);
  });

  it('opens a headless station’s data, taking its key file over into safeStorage', async () => {
    const headlessDir = mkdtempSync(path.join(tmpdir(), 'enrolla-headless-'));
    cleanups.push(() => rmSync(headlessDir, { recursive: true, force: true }));
    writeFileSync(path.join(headlessDir, 'config.json'), JSON.stringify(NO_ENGINES));
    const config = loadConfig({ env: {}, overrides: { dataDir: headlessDir } });
    const headless = await startStation(config, { logger: createLogger('silent'), consoleDir: null });
    await headless.gallery.enroll('30111222', [{ modelId: 'm', embedding: new Float32Array(4), quality: 60, thumbnail: null }], {
      replace: false,
    });
    await headless.close();
    expect(existsSync(keyFile(headlessDir))).toBe(true);

    const electron = fakeElectron({ userData: userDataDir() });
    const { station } = await start(electron, { ENROLLA_DATA_DIR: headlessDir });
    expect(await station.gallery.getPerson('30111222')).toBeTruthy();
    expect(existsSync(keyFile(headlessDir))).toBe(false);
    expect(existsSync(path.join(headlessDir, 'keys', `${DATA_KEY_SECRET}.sealed`))).toBe(true);
  });

  it('refuses to start on Linux’s plaintext secret storage, telling the operator why', async () => {
    const userData = userDataDir();
    const electron = fakeElectron({ userData, safeStorage: new FakeSafeStorage('basic_text') });
    const env = environment();
    expect(await runShell(electron, env)).toBeNull();
    expect(electron.app.exitCode).toBe(1);
    expect(electron.windows).toHaveLength(0);
    expect(electron.errors).toHaveLength(1);
    expect(electron.errors[0]!.content).toMatch(/texto plano.*ENROLLA_ALLOW_PLAINTEXT_SECRETS=1/s);
    expect(env.errText.join('')).toMatch(/Enrolla no pudo iniciar/);
    expect(existsSync(path.join(userData, 'station', 'keys'))).toBe(false);

    // The documented override starts it.
    const overridden = fakeElectron({ userData, safeStorage: new FakeSafeStorage('basic_text') });
    await start(overridden, { ENROLLA_ALLOW_PLAINTEXT_SECRETS: '1' });
  });

  it('is a single instance: a second one quits, the first comes to the front', async () => {
    const userData = userDataDir();
    const electron = fakeElectron({ userData });
    const { window } = await start(electron);
    const second = fakeElectron({ userData, lock: false });
    expect(await runShell(second, environment())).toBeNull();
    expect(second.app.quitCalls).toBe(1);
    expect(second.windows).toHaveLength(0);
    (window as unknown as { minimized: boolean }).minimized = true;
    electron.app.emit('second-instance');
    expect(window.isMinimized()).toBe(false);
    expect((window as unknown as { focused: number }).focused).toBe(1);
  });

  it('packaged: models from the resources directory, no DevTools; closing the window stops the station', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    electron.app.isPackaged = true;
    const shell = await runShell(electron, environment());
    expect(shell).not.toBeNull();
    expect(electron.windows[0]!.options.webPreferences.devTools).toBe(false);
    expect(electron.menu!.map((m) => m.role ?? m.label)).toEqual(['fileMenu', 'editMenu', 'Respaldo', 'windowMenu']);
    // extraResources land beside app.asar, not inside it (electron-builder.yml).
    expect(shell!.config.modelsDir).toBe('/opt/Enrolla/resources/models');
    electron.app.emit('window-all-closed');
    await vi.waitFor(() => expect(electron.app.quitCalls).toBe(1));
  });

  it('its Respaldo menu writes a backup and exports the key that opens it, each audited; Cancel writes nothing', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const { station } = await start(electron);
    const out = mkdtempSync(path.join(tmpdir(), 'enrolla-usb-'));
    cleanups.push(() => rmSync(out, { recursive: true, force: true }));
    const respaldo = electron.menu!.find((m) => m.label === 'Respaldo')!;
    const click = (label: RegExp) => respaldo.submenu!.find((i) => label.test(i.label ?? ''))!.click!();
    const shown = (title: string) => vi.waitFor(() => expect(electron.messages.map((m) => m.title)).toContain(title));

    const backup = path.join(out, 'estacion.db');
    electron.saveAnswers.push(backup);
    click(/Crear respaldo/);
    await shown('Respaldo creado');
    expect(inspectDatabase(backup, null)).toMatchObject({ persons: 0, samples: 0, key: 'not-checked' });

    // The key leaves only after a warning that says what it gives whoever holds it.
    const keyPath = path.join(out, 'data.key');
    electron.messageAnswers.push(0);
    electron.saveAnswers.push(keyPath);
    click(/Exportar la clave/);
    await shown('Clave exportada');
    expect(electron.messages.find((m) => m.title === 'Exportar la clave de datos')).toMatchObject({ type: 'warning' });
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const exported = Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'base64');
    expect(inspectDatabase(backup, exported).key).toBe('opens');
    expect(
      station.store.records
        .listAudit({ limit: 10 })
        .filter((e) => e.tokenName === 'escritorio')
        .map((e) => e.operation),
    ).toEqual(['exportDataKey', 'createBackup']);

    // Cancel at the warning, or in the save dialog: nothing written. An existing file: refused, said.
    rmSync(keyPath);
    electron.messageAnswers.push(1);
    click(/Exportar la clave/);
    await vi.waitFor(() => expect(electron.messages.filter((m) => m.title === 'Exportar la clave de datos')).toHaveLength(2));
    electron.saveAnswers.push(null);
    click(/Crear respaldo/);
    electron.saveAnswers.push(backup);
    click(/Crear respaldo/);
    await vi.waitFor(() => expect(electron.errors.map((e) => e.title)).toEqual(['No se pudo crear el respaldo']));
    expect(electron.errors[0]!.content).toMatch(/ya existe/);
    expect(readdirSync(out)).toEqual(['estacion.db']);
  });

  it('its Respaldo menu restores a backup: the station comes back with the backup’s gallery, the replaced database kept', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const shell = await start(electron);
    const before = shell.station;
    const out = usbStick();
    await enroll(before, 'ana');
    const backup = path.join(out, 'estacion.db');
    electron.saveAnswers.push(backup);
    menuItem(electron, /Crear respaldo/)();
    await shown(electron, 'Respaldo creado');
    await enroll(before, 'beto');

    // Refused before anything stops: not a backup; Cancel at the confirmation.
    const text = path.join(out, 'notas.db');
    writeFileSync(text, 'no es una base');
    electron.openAnswers.push(text);
    menuItem(electron, /Restaurar/)();
    await vi.waitFor(() => expect(electron.errors.map((e) => e.title)).toEqual(['No se pudo restaurar el respaldo']));
    expect(electron.errors[0]!.content).toMatch(/no es SQLite/);
    electron.openAnswers.push(backup);
    electron.messageAnswers.push(1);
    menuItem(electron, /Restaurar/)();
    await shown(electron, 'Restaurar un respaldo');
    expect(shell.station).toBe(before);
    expect(await personsOf(shell)).toEqual(['ana', 'beto']);

    electron.openAnswers.push(backup);
    electron.messageAnswers.push(0);
    menuItem(electron, /Restaurar/)();
    await shown(electron, 'Respaldo restaurado');
    const confirmation = electron.messages.filter((m) => m.title === 'Restaurar un respaldo').at(-1)!;
    expect(confirmation).toMatchObject({ type: 'warning' });
    expect(confirmation.message).toMatch(/Tiene 1 personas .* tiene ahora 2 personas/);
    const after = shell.station;
    expect(after).not.toBe(before);
    expect(await personsOf(shell)).toEqual(['ana']);
    // The window and its bridge follow the station that runs now.
    expect(electron.windows).toHaveLength(1);
    expect(electron.windows[0]!.loaded).toEqual([`${before.url}/`, `${after.url}/`]);
    const bridge = electron.askBridge(BRIDGE_CHANNEL, {
      sender: electron.windows[0]!.webContents,
      url: `${after.url}/`,
    }) as ConsoleBridge;
    expect(bridge.baseUrl).toBe(after.url);
    const send = makeClient(after.url, readFileSync(path.join(dataDirOf(electron), 'tls', 'station-cert.pem'), 'utf8'));
    const listed = await send('/biometria/listar-personas', {
      method: 'POST',
      headers: { Authorization: `Bearer ${bridge.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(listed.json<{ data: { persons: { idPersona: string }[] } }>().data.persons.map((p) => p.idPersona)).toEqual(['ana']);
    // The database it replaced is kept, with the person enrolled after the backup.
    const replacedDir = path.join(dataDirOf(electron), 'replaced');
    const [replaced] = readdirSync(replacedDir).filter((f) => f.endsWith('.db'));
    expect(inspectDatabase(path.join(replacedDir, replaced!), null).persons).toBe(2);
    expect(
      after.store.records
        .listAudit({ limit: 5 })
        .filter((e) => e.tokenName === 'escritorio')
        .map((e) => e.operation),
    ).toContain('restoreBackup');
  });

  it('restores another computer’s backup with its exported key, and can restore the replaced database back', async () => {
    const out = usbStick();
    const first = fakeElectron({
      userData: userDataDir(),
      safeStorage: new FakeSafeStorage('gnome_libsecret', true, 'llavero-uno'),
    });
    const old = await start(first);
    await enroll(old.station, 'ana');
    const backup = path.join(out, 'estacion.db');
    const exported = path.join(out, 'data.key');
    first.saveAnswers.push(backup);
    menuItem(first, /Crear respaldo/)();
    await shown(first, 'Respaldo creado');
    first.messageAnswers.push(0);
    first.saveAnswers.push(exported);
    menuItem(first, /Exportar la clave/)();
    await shown(first, 'Clave exportada');
    // As a USB stick's FAT shows it: no owner-only mode.
    chmodSync(exported, 0o755);
    await old.station.close();

    const userData = userDataDir();
    const keyring = new FakeSafeStorage('gnome_libsecret', true, 'llavero-dos');
    const second = fakeElectron({ userData, safeStorage: keyring });
    const shell = await start(second);
    await enroll(shell.station, 'zoe');
    second.openAnswers.push(backup, exported);
    second.messageAnswers.push(0, 0); // choose the key, then restore
    menuItem(second, /Restaurar/)();
    await shown(second, 'Respaldo restaurado');
    expect(second.messages.map((m) => m.title)).toContain('El respaldo es de otra clave de datos');
    expect(await personsOf(shell)).toEqual(['ana']);
    // The key is now this computer's, sealed: the next start opens the restored gallery.
    await shell.station.close();
    const restarted = fakeElectron({ userData, safeStorage: keyring });
    const next = await start(restarted);
    expect(await personsOf(next)).toEqual(['ana']);

    // The replaced database went aside with its key kept: restored back without asking for a key.
    const replacedDir = path.join(dataDirOf(restarted), 'replaced');
    const [replaced] = readdirSync(replacedDir).filter((f) => f.endsWith('.db'));
    restarted.openAnswers.push(path.join(replacedDir, replaced!));
    restarted.messageAnswers.push(0);
    menuItem(restarted, /Restaurar/)();
    await shown(restarted, 'Respaldo restaurado');
    expect(restarted.messages.map((m) => m.title)).not.toContain('El respaldo es de otra clave de datos');
    expect(await personsOf(next)).toEqual(['zoe']);
  });

  it('a station whose database no longer opens offers a restore at start, and starts on the backup', async () => {
    const userData = userDataDir();
    const electron = fakeElectron({ userData });
    const shell = await start(electron);
    await enroll(shell.station, 'ana');
    const backup = path.join(usbStick(), 'estacion.db');
    electron.saveAnswers.push(backup);
    menuItem(electron, /Crear respaldo/)();
    await shown(electron, 'Respaldo creado');
    await shell.station.close();
    // Damaged on disk: every page but the first overwritten, so it still reads as SQLite (SQLITE_CORRUPT).
    const database = path.join(dataDirOf(electron), 'enrolla.db');
    const pages = readFileSync(database);
    expect(pages.length).toBeGreaterThan(2 * 4096);
    const garbage = Buffer.concat([pages.subarray(0, 4096), randomBytes(pages.length - 4096)]);
    writeFileSync(database, garbage);

    // Quit at the offer: the error said once, nothing touched.
    const quit = fakeElectron({ userData });
    quit.messageAnswers.push(0);
    expect(await runShell(quit, environment())).toBeNull();
    expect(quit.app.exitCode).toBe(1);
    expect(quit.messages).toEqual([expect.objectContaining({ type: 'error', title: 'Enrolla no pudo iniciar' })]);
    expect(quit.messages[0]!.message).toMatch(/está dañada/);
    expect(quit.errors).toEqual([]);
    expect(readFileSync(database).equals(garbage)).toBe(true);

    const restoring = fakeElectron({ userData });
    restoring.messageAnswers.push(1, 0); // restore, then confirm
    restoring.openAnswers.push(backup);
    const next = await start(restoring);
    expect(restoring.messages.map((m) => m.title)).toEqual([
      'Enrolla no pudo iniciar',
      'Restaurar un respaldo',
      'Respaldo restaurado',
    ]);
    expect(await personsOf(next)).toEqual(['ana']);
    const replacedDir = path.join(dataDirOf(restoring), 'replaced');
    const [replaced] = readdirSync(replacedDir);
    expect(readFileSync(path.join(replacedDir, replaced!)).equals(garbage)).toBe(true);
  });

  it('a quit from the menu or the system waits for the station to stop, then quits', async () => {
    const electron = fakeElectron({ userData: userDataDir() });
    const shell = await runShell(electron, environment());
    const quitting = (): { prevented: boolean; preventDefault(): void } => ({
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    });
    const first = quitting();
    electron.app.emit('before-quit', first);
    expect(first.prevented).toBe(true);
    // The windows close as part of the quit: one stop, not two.
    electron.app.emit('window-all-closed');
    await vi.waitFor(() => expect(electron.app.quitCalls).toBe(1));
    const send = makeClient(shell!.station.url, readFileSync(path.join(dataDirOf(electron), 'tls', 'station-cert.pem'), 'utf8'));
    await expect(send('/')).rejects.toThrow(/ECONNREFUSED/);
    const again = quitting();
    electron.app.emit('before-quit', again);
    expect(again.prevented).toBe(false);
    expect(electron.app.quitCalls).toBe(1);
  });
});

function usbStick(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-usb-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function menuItem(electron: FakeElectron, label: RegExp): () => void {
  const respaldo = electron.menu!.find((m) => m.label === 'Respaldo')!;
  return respaldo.submenu!.find((i) => label.test(i.label ?? ''))!.click!;
}

const shown = (electron: FakeElectron, title: string) =>
  vi.waitFor(() => expect(electron.messages.map((m) => m.title)).toContain(title), { timeout: 15_000 });

async function enroll(station: RunningShell['station'], idPersona: string): Promise<void> {
  const embedding = Float32Array.from({ length: 8 }, (_, i) => Math.sin(idPersona.length + i));
  await station.gallery.enroll(idPersona, [{ modelId: 'test-model@1', embedding, quality: 60, thumbnail: null }], {
    replace: false,
  });
}

const personsOf = async (shell: RunningShell) =>
  (await shell.station.gallery.listPersons({ limit: 10, offset: 0 })).persons.map((p) => p.idPersona);

function dataDirOf(electron: FakeElectron): string {
  return path.join(electron.app.getPath('userData'), 'station');
}
