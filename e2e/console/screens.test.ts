import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { SCOPES } from '../../common/scopes.js';
import { packageRoot } from '../../server/version.js';
import { PEOPLE } from '../../test/dni/dni-person.js';
import { renderBack2012, renderFront2012 } from '../../test/dni/synthetic-card.js';
import { enrollThroughApi, logIn } from '../helpers/console.js';
import { BROWSER_MISSING, launchBrowser, newContext, screenshotPath } from '../helpers/browser.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { FIXTURES, fixture } from '../helpers/templates.js';

// An operator at the counter, in Spanish, on the real station and engines, through the file-upload
// path of the capture components. The steps share one page and run in order.
const person = PEOPLE.ordinary!;
const STEP = 180_000;

let t: TestStation;
let browser: Browser;
let page: Page;
let card: { front: Buffer; back: Buffer };

const photo = (name: string) => path.join(FIXTURES, name);

async function go(route: string): Promise<void> {
  await page.goto(`${t.station.url}/#/${route}`);
  await page.locator('main h2').first().waitFor();
}

/** Waits for the big result panel and returns its machine status. */
async function verdict(): Promise<string> {
  const v = page.getByTestId('verdict').last();
  await v.waitFor({ timeout: STEP });
  return (await v.getAttribute('data-status')) ?? '';
}

/** Chooses a photo and waits until its own preview shows: a screen keeps the previous photo's until then. */
async function uploadFace(name: string): Promise<void> {
  const preview = page.getByTestId('face-preview');
  const shown = async () => ((await preview.count()) > 0 ? await preview.getAttribute('src') : null);
  const before = await shown();
  await page.getByTestId('face-capture-file').setInputFiles(photo(name));
  await expect.poll(shown, { timeout: STEP, interval: 50 }).not.toBe(before);
}

async function uploadCard(): Promise<void> {
  await page
    .getByTestId('document-capture-front-file')
    .setInputFiles({ name: 'frente.png', mimeType: 'image/png', buffer: card.front });
  await page
    .getByTestId('document-capture-back-file')
    .setInputFiles({ name: 'dorso.png', mimeType: 'image/png', buffer: card.back });
  await page.getByTestId('document-capture-done').click();
}

beforeAll(async () => {
  if (BROWSER_MISSING) return;
  t = await startTestStation({}, { consoleDir: path.join(packageRoot(), 'dist', 'renderer'), waitForEngines: true });
  await enrollThroughApi(t, [
    ['kit', 'fr-kit_harington2.jpg'],
    ['rose', 'fr-rose_leslie1.jpg'],
  ] as const);
  const front = await renderFront2012(person, { portraitPhoto: Buffer.from(fixture('fr-obama.jpg')) });
  const back = await renderBack2012(person);
  card = { front: front.image, back: back.image };
  browser = await launchBrowser();
  page = await (await newContext(browser)).newPage();
  await page.goto(`${t.station.url}/`);
  await logIn(page, t.token([...SCOPES], 'mostrador 1'));
  await page.getByTestId('persons-total').waitFor();
}, STEP);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe.skipIf(BROWSER_MISSING !== null)('operator console screens, in Spanish', () => {
  it(
    'enrolls a person after reading their DNI, which fills the idPersona',
    async () => {
      await go('enrolar');
      await page.getByText('Leer el DNI (opcional)').click();
      await uploadCard();
      expect(await verdict()).toBe('OK');
      await expect(page.getByLabel('DNI / idPersona').inputValue()).resolves.toBe(person.documentNumber);
      await uploadFace('fr-obama.jpg');
      await page.getByRole('button', { name: 'Comparar el rostro con la foto del DNI' }).click();
      await page.locator('[data-testid=verdict][data-status=CHECK_CONFIDENCE]').waitFor({ timeout: STEP });
      await page.getByRole('button', { name: 'Enrolar', exact: true }).click();
      await page.locator('[data-testid=verdict][data-status=SUCCESS]').waitFor({ timeout: STEP });
      expect(await page.getByText('Persona enrolada').isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath('console-enrolar'), fullPage: true });
    },
    STEP,
  );

  it(
    'verifies the enrolled person 1:1 with another photo',
    async () => {
      await go('verificar');
      await page.getByLabel('DNI / idPersona').fill(person.documentNumber);
      await uploadFace('fr-obama-test1.jpg');
      await page.getByRole('button', { name: 'Verificar', exact: true }).click();
      expect(await verdict()).toBe('CHECK_CONFIDENCE');
      expect(await page.getByText('Identidad verificada').isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath('console-verificar'), fullPage: true });
    },
    STEP,
  );

  it(
    'identifies them among others with a thumbnail, and rejects a stranger',
    async () => {
      await go('identificar');
      await uploadFace('fr-obama2.jpg');
      await page.getByRole('button', { name: 'Identificar', exact: true }).click();
      expect(await verdict()).toBe('IDENTIFY_OK');
      const first = page.getByTestId('candidate').first();
      expect(await first.textContent()).toContain(person.documentNumber);
      await first.locator('img.thumb').waitFor();
      await page.screenshot({ path: screenshotPath('console-identificar'), fullPage: true });

      await uploadFace('human-stock-emotions-a-1.jpg');
      await page.getByRole('button', { name: 'Identificar', exact: true }).click();
      expect(await verdict()).toBe('NOT_IDENTIFIED');
      expect(await page.getByText('No identificada').isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath('console-identificar-extrano'), fullPage: true });
    },
    STEP,
  );

  it(
    'shows face data with landmarks, attributes and quality, and runs the anti-spoofing check',
    async () => {
      await go('extraer');
      await uploadFace('human-stock-emotions-a-1.jpg');
      await page.getByRole('button', { name: 'Analizar' }).click();
      expect(await verdict()).toBe('OK');
      await page.getByTestId('face-overlay').locator('svg circle').first().waitFor();
      expect(await page.getByTestId('face-quality').isVisible()).toBe(true);
      expect(await page.getByTestId('face-traits').isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath('console-extraer'), fullPage: true });

      await go('antispoof');
      // A five-frame live sequence (one file per frame) and a photo of the same man as reference.
      await page.getByTestId('face-capture-file').setInputFiles([0, 1, 2, 3, 4].map((i) => photo(`video/live-${i}.jpg`)));
      await page.getByTestId('face-preview').waitFor();
      await page.getByTestId('spoof-reference-file').setInputFiles(photo('video/live-0.jpg'));
      await page.getByRole('button', { name: 'Controlar' }).click();
      expect(await verdict()).toBe('NO_SPOOF_CHECK_CONFIDENCE');
      expect(await page.getByText('Presencia real').isVisible()).toBe(true);
      expect(await page.getByTestId('same-person').textContent()).toContain('Sí');
      await page.screenshot({ path: screenshotPath('console-antispoof'), fullPage: true });
    },
    STEP,
  );

  it(
    'reads a synthetic DNI: fields with source and validity, portrait, barcode and MRZ',
    async () => {
      await go('dni');
      await uploadCard();
      expect(await verdict()).toBe('OK');
      const row = page.locator('[data-testid=dni-fields] tr[data-field=documentNumber]');
      expect(await row.textContent()).toContain(person.documentNumber);
      expect(await row.textContent()).toMatch(/MRZ|PDF417/);
      await page.getByTestId('dni-portrait').waitFor();
      expect(await page.getByTestId('dni-pdf417').textContent()).toContain('Detectado');
      expect(await page.getByTestId('dni-mrz').textContent()).toContain('Detectado');
      await page.screenshot({ path: screenshotPath('console-dni'), fullPage: true });
    },
    STEP,
  );

  it(
    'creates a token shown once, then revokes it',
    async () => {
      await go('tokens');
      await page.getByLabel('Nombre del token').fill('caja 3');
      await page.getByRole('button', { name: 'Crear token' }).click();
      const value = (await page.getByTestId('new-token').textContent())!.trim();
      expect(value).toMatch(/^enr_/);
      expect((await t.post(OPERATIONS.verify.path, { idPersona: 'x', template: 'x' }, value)).status).not.toBe(401);
      const row = page.locator('[data-testid=tokens-table] tr[data-token="caja 3"]');
      await row.waitFor();
      await page.screenshot({ path: screenshotPath('console-tokens'), fullPage: true });
      await page.getByRole('button', { name: 'Revocar caja 3' }).click();
      await row.getByText('Revocado').waitFor();
      expect((await t.post(OPERATIONS.verify.path, { idPersona: 'x', template: 'x' }, value)).status).toBe(401);
    },
    STEP,
  );

  it(
    'opens a person in the gallery and deletes them',
    async () => {
      await go('galeria');
      expect(await page.getByTestId('persons-total').textContent()).toBe('3 personas enroladas');
      await page.getByLabel('Buscar por prefijo de idPersona').fill(person.documentNumber.slice(0, 4));
      await page.getByTestId('persons-total').filter({ hasText: '1 persona enrolada' }).waitFor();
      await page.getByRole('button', { name: `Abrir ${person.documentNumber}` }).click();
      await page.getByTestId('person-panel').locator('img.thumb').first().waitFor();
      await page.screenshot({ path: screenshotPath('console-galeria'), fullPage: true });
      await page.getByRole('button', { name: 'Eliminar', exact: true }).click();
      await page.getByRole('button', { name: `Confirmar eliminación de ${person.documentNumber}` }).click();
      await page.getByText(`${person.documentNumber} eliminada`).waitFor();
      await page.getByTestId('persons-total').filter({ hasText: '0 personas enroladas' }).waitFor();
      const got = await t.post(OPERATIONS.getPerson.path, { idPersona: person.documentNumber }, t.token(['enroll']));
      expect(got.json()).toMatchObject({ data: { status: 'INEXISTENT' } });
    },
    STEP,
  );

  it(
    'says clearly when the station refuses a call: a token without the identify scope',
    async () => {
      const limited = await (await newContext(browser)).newPage();
      await limited.goto(`${t.station.url}/#/identificar`);
      await logIn(limited, t.token(['enroll'], 'solo enrolar'));
      await limited.getByTestId('face-capture-file').setInputFiles(photo('fr-obama2.jpg'));
      await limited.getByRole('button', { name: 'Identificar', exact: true }).click();
      const alert = limited.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('No se pudo completar la operación');
      expect(await limited.getByTestId('verdict').count()).toBe(0);
      await limited.screenshot({ path: screenshotPath('console-error'), fullPage: true });
      await limited.close();
    },
    STEP,
  );

  it(
    'shows the audit log, the settings, and switches to English for good',
    async () => {
      await go('auditoria');
      const audit = page.getByTestId('audit-table');
      await audit.getByText('mostrador 1').first().waitFor();
      expect(await audit.textContent()).toContain(person.documentNumber);
      await page.screenshot({ path: screenshotPath('console-auditoria'), fullPage: true });

      await go('ajustes');
      await page.getByTestId('station-settings').getByText('No: solo esta computadora').waitFor();
      await page.getByTestId('backups').getByText('Desactivados').waitFor();
      await page.getByRole('button', { name: 'Crear un respaldo ahora' }).click();
      await page.getByTestId('backup-made').waitFor();
      expect(await page.getByTestId('backup-made').textContent()).toMatch(
        /Respaldo escrito en .*enrolla-.*\.db \(\d+ personas\)/,
      );
      await page.getByLabel('Umbral de verificación 1:1 (0-100)').fill('60');
      await page.getByRole('button', { name: 'Guardar' }).click();
      await page.getByText('Guardado en este puesto.').waitFor();
      await page.screenshot({ path: screenshotPath('console-ajustes'), fullPage: true });

      await page.getByLabel('Idioma').selectOption('en');
      await page.getByRole('link', { name: 'Enroll' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await expect(page.getByLabel('1:1 verification threshold (0-100)').inputValue()).resolves.toBe('60');
      await page.screenshot({ path: screenshotPath('console-settings-en'), fullPage: true });
    },
    STEP,
  );
});
