import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why the browser suites cannot run here, or null; a suite skips with this said (npm test names it). */
export const BROWSER_MISSING = existsSync(CHROMIUM)
  ? null
  : `Chromium no está en ${CHROMIUM}: instale el paquete de Debian 'chromium' (npm test lo instala si corre como root)`;
if (BROWSER_MISSING) console.warn(`Se omiten las pruebas en el navegador: ${BROWSER_MISSING}`);
export const SCREENSHOTS = new URL('../screenshots/', import.meta.url).pathname;

/**
 * Debian's Chromium, headless, with no background traffic (this machine has no internet) and,
 * when given, a fake camera fed from a video file.
 */
export async function launchBrowser(options: { fakeVideo?: string } = {}): Promise<Browser> {
  if (BROWSER_MISSING) throw new Error(BROWSER_MISSING);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(options.fakeVideo
        ? [
            '--use-fake-ui-for-media-stream',
            '--use-fake-device-for-media-stream',
            `--use-file-for-fake-video-capture=${options.fakeVideo}`,
          ]
        : []),
    ],
  });
}

export async function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true, locale: 'es-AR', viewport: { width: 1280, height: 860 } });
}

export function screenshotPath(name: string): string {
  return path.join(SCREENSHOTS, `${name}.png`);
}

export function tempProfile(): string {
  return mkdtempSync(path.join(tmpdir(), 'enrolla-chromium-'));
}
