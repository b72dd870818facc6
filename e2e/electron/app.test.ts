// The desktop app in a real Electron, driven by Playwright. Runs where an Electron binary exists
// (ELECTRON_PATH, or node_modules/electron after `npm run desktop:install`), on the session's
// display or a virtual one (Debian's xvfb); skipped, and says why, everywhere else.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../server/version.js';
import { displayForElectron } from '../helpers/display.js';

/** The page's globals, typed here (this project's Node tsconfig has no DOM library). */
interface PageGlobals {
  enrolla?: { baseUrl: string; token: string };
  require?: unknown;
  process?: unknown;
  open(url: string): unknown;
  location: { href: string };
  navigator: { permissions: { query(d: { name: string }): Promise<{ state: string }> } };
}

function electronBinary(): string | null {
  if (process.env.ELECTRON_PATH) return existsSync(process.env.ELECTRON_PATH) ? process.env.ELECTRON_PATH : null;
  try {
    const binary: unknown = createRequire(import.meta.url)('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null; // the npm package is installed for its types, but its binary was never downloaded
  }
}

const binary = electronBinary();
const display = binary ? await displayForElectron() : null;
const missing = !binary
  ? 'no hay binario de Electron (ELECTRON_PATH, o npm run desktop:install)'
  : display && 'missing' in display
    ? display.missing
    : null;
if (missing) console.warn(`e2e/electron: OMITIDO: ${missing}. El shell se prueba con Electron simulado en main/*.test.ts.`);

describe.skipIf(missing !== null)('desktop app in a real Electron (skipped without an Electron binary or a display)', () => {
  let dir: string;
  let app: ElectronApplication;
  let page: Page;
  const displayEnv = display && 'env' in display ? display.env : {};

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'enrolla-electron-'));
    const dataDir = path.join(dir, 'station');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      path.join(dataDir, 'config.json'),
      JSON.stringify({ port: 0, logLevel: 'warn', engines: { face: { enabled: false }, document: { enabled: false } } }),
    );
    app = await _electron.launch({
      executablePath: binary!,
      // No keyring on a CI machine: the plaintext backend, accepted only through the documented override.
      args: [path.join(packageRoot(), 'dist', 'main', 'main.js'), `--user-data-dir=${dir}`, '--password-store=basic'],
      env: { ...process.env, ...displayEnv, ENROLLA_DATA_DIR: dataDir, ENROLLA_ALLOW_PLAINTEXT_SECRETS: '1' } as Record<
        string,
        string
      >,
    });
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  });
  afterAll(async () => {
    await app?.close();
    if (display && 'stop' in display) display.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads the console from the station, with the bridge and without Node', async () => {
    expect(page.url()).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const seen = await page.evaluate(() => {
      const page = globalThis as unknown as PageGlobals;
      const bridge = page.enrolla;
      return {
        require: typeof page.require,
        process: typeof page.process,
        frozen: Object.isFrozen(bridge),
        keys: Object.keys(bridge ?? {}).sort(),
        baseUrl: bridge?.baseUrl,
        token: bridge?.token.startsWith('enr_'),
      };
    });
    expect(seen).toEqual({
      require: 'undefined',
      process: 'undefined',
      frozen: true,
      keys: ['baseUrl', 'token'],
      baseUrl: new URL(page.url()).origin,
      token: true,
    });
  });

  it('refuses permissions other than the camera (permission check handler)', async () => {
    const state = await page.evaluate(async () => {
      const { navigator } = globalThis as unknown as PageGlobals;
      return (await navigator.permissions.query({ name: 'geolocation' })).state;
    });
    expect(state).toBe('denied');
  });

  it('authenticates the console token against the station', async () => {
    const answer = await page.evaluate(async () => {
      const token = (globalThis as unknown as PageGlobals).enrolla?.token ?? '';
      const res = await fetch('/biometria/admin/estado-estacion', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      return (await res.json()) as { success: boolean };
    });
    expect(answer.success).toBe(true);
  });

  it('opens no window, navigates nowhere and reaches no other host', async () => {
    const start = page.url();
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).open('https://example.com/') === null)).toBe(true);
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500); // a navigation that is not coming cannot be awaited
    expect(page.url()).toBe(start);
    expect(app.windows()).toHaveLength(1);
    const external = await page.evaluate(() =>
      fetch('https://example.com/').then(
        () => 'reached',
        () => 'blocked',
      ),
    );
    expect(external).toBe('blocked');
  });

  it('keeps the data key sealed, never in clear', () => {
    expect(existsSync(path.join(dir, 'station', 'keys', 'data-key.sealed'))).toBe(true);
    expect(existsSync(path.join(dir, 'station', 'keys', 'data.key'))).toBe(false);
  });
});
