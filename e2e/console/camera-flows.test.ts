import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { SCOPES } from '../../common/scopes.js';
import { packageRoot } from '../../server/version.js';
import { enrollThroughApi, logIn } from '../helpers/console.js';
import { BROWSER_MISSING, launchBrowser, newContext, screenshotPath } from '../helpers/browser.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { FIXTURES } from '../helpers/templates.js';

// The person at the counter is in front of the camera (Chromium's fake camera fed with a live
// clip): the operator enrolls them, verifies them and identifies them among others without
// touching a file, in Spanish, on the real station and engines.
const STEP = 180_000;
const ID = 'camara-20261122';

let t: TestStation;
let browser: Browser;
let page: Page;

async function go(route: string): Promise<void> {
  await page.goto(`${t.station.url}/#/${route}`);
  await page.locator('main h2').first().waitFor();
}

/** The capture component records its sequence by itself once the frame is good. */
async function cameraCapture(): Promise<void> {
  await page.getByTestId('face-capture-video').waitFor();
  await page.getByTestId('face-preview').waitFor({ timeout: STEP });
}

async function verdict(status: string): Promise<void> {
  const shown = page.getByTestId('verdict');
  await shown.waitFor({ timeout: STEP });
  const got = { status: await shown.getAttribute('data-status'), text: await shown.textContent() };
  expect(got.status, `veredicto: ${got.text}`).toBe(status);
}

beforeAll(async () => {
  if (BROWSER_MISSING) return;
  t = await startTestStation({}, { consoleDir: path.join(packageRoot(), 'dist', 'renderer'), waitForEngines: true });
  await enrollThroughApi(t, [
    ['kit', 'fr-kit_harington2.jpg'],
    ['rose', 'fr-rose_leslie1.jpg'],
    ['obama', 'fr-obama.jpg'],
  ] as const);
  browser = await launchBrowser({ fakeVideo: path.join(FIXTURES, 'video', 'real2_640x480_15fps_6s.mjpeg') });
  const context = await newContext(browser);
  await context.grantPermissions(['camera'], { origin: t.station.url });
  page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[página] ${e.message}`));
  await page.goto(`${t.station.url}/`);
  await logIn(page, t.token([...SCOPES], 'mostrador cámara'));
  await page.getByTestId('persons-total').waitFor();
}, STEP);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe.skipIf(BROWSER_MISSING !== null)('operator console with the camera', () => {
  it(
    'enrolls the person in front of the camera',
    async () => {
      await go('enrolar');
      await page.getByLabel('DNI / idPersona').fill(ID);
      await cameraCapture();
      await page.getByRole('button', { name: 'Enrolar', exact: true }).click();
      await verdict('SUCCESS');
      await page.screenshot({ path: screenshotPath('console-camara-enrolar'), fullPage: true });
      const stored = await t.post(OPERATIONS.getPerson.path, { idPersona: ID }, t.token(['enroll']));
      expect(stored.json<{ data: { person: { samples: number } } }>().data.person.samples).toBeGreaterThan(0);
    },
    STEP,
  );

  it(
    'verifies them 1:1 from a new capture',
    async () => {
      await go('verificar');
      await page.getByLabel('DNI / idPersona').fill(ID);
      await cameraCapture();
      await page.getByRole('button', { name: 'Verificar', exact: true }).click();
      await verdict('CHECK_CONFIDENCE');
      await page.screenshot({ path: screenshotPath('console-camara-verificar'), fullPage: true });
    },
    STEP,
  );

  it(
    'identifies them first among the enrolled, and a person enrolled under another id does not verify as them',
    async () => {
      await go('identificar');
      await cameraCapture();
      await page.getByRole('button', { name: 'Identificar', exact: true }).click();
      await verdict('IDENTIFY_OK');
      expect(await page.getByTestId('candidate').first().textContent()).toContain(ID);
      await page.screenshot({ path: screenshotPath('console-camara-identificar'), fullPage: true });

      await go('verificar');
      await page.getByLabel('DNI / idPersona').fill('obama');
      await cameraCapture();
      await page.getByRole('button', { name: 'Verificar', exact: true }).click();
      await verdict('NOT_VERIFIED');
    },
    STEP,
  );
});
