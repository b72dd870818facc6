import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../server/version.js';
import { logIn } from '../helpers/console.js';
import { BROWSER_MISSING, launchBrowser, newContext, screenshotPath } from '../helpers/browser.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

let t: TestStation;
let browser: Browser;

beforeAll(async () => {
  if (BROWSER_MISSING) return;
  t = await startTestStation({}, { consoleDir: path.join(packageRoot(), 'dist', 'renderer') });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe.skipIf(BROWSER_MISSING !== null)('operator console served by the station', () => {
  it('refuses a wrong token with the station’s message, then shows the gallery', async () => {
    await t.station.gallery.enroll('27123456', [{ modelId: 'm', embedding: new Float32Array(4), quality: 70, thumbnail: null }], {
      replace: false,
    });
    const page = await (await newContext(browser)).newPage();
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.station.url)) external.push(r.url());
    });
    await page.goto(`${t.station.url}/`);
    await expect(page.getByRole('heading', { name: 'Enrolla' }).isVisible()).resolves.toBe(true);
    await logIn(page, 'enr_invalido');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/Authorization|token/i);
    await page.screenshot({ path: screenshotPath('console-login-error') });

    await logIn(page, t.token(['enroll']));
    await page.getByTestId('persons-total').waitFor();
    expect(await page.getByTestId('persons-total').textContent()).toBe('1 persona enrolada');
    expect(await page.getByText('27123456').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('console-gallery') });
    expect(external).toEqual([]);
  });
});
