import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type ResponseOf } from '../../common/api/operations.js';
import { decodeTemplate } from '../../common/uitemplate/index.js';
import { packageRoot } from '../../server/version.js';
import { PEOPLE } from '../../test/dni/dni-person.js';
import { renderBack2012, renderFront2012 } from '../../test/dni/synthetic-card.js';
import { launchBrowser, newContext, screenshotPath } from '../helpers/browser.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { FIXTURES, fixture } from '../helpers/templates.js';

// The capture components' standalone page, in Chromium with a fake camera, against the real
// station: guidance models served by the station, templates read by the real engines.
let t: TestStation;
let browser: Browser;
let blankBrowser: Browser;
let tmp: string;

/** A y4m clip of black frames: the camera sees no one. */
function blackClip(file: string): void {
  const width = 160;
  const height = 120;
  const frame = Buffer.concat([
    Buffer.from('FRAME\n'),
    Buffer.alloc(width * height, 16),
    Buffer.alloc((width * height) / 2, 128),
  ]);
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), frame, frame]));
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'enrolla-capture-'));
  t = await startTestStation({}, { consoleDir: path.join(packageRoot(), 'dist', 'renderer'), waitForEngines: true });
  browser = await launchBrowser({ fakeVideo: path.join(FIXTURES, 'video', 'real2_640x480_15fps_6s.mjpeg') });
  blackClip(path.join(tmp, 'black.y4m'));
  blankBrowser = await launchBrowser({ fakeVideo: path.join(tmp, 'black.y4m') });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await blankBrowser?.close();
  await t?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function openHarness(b: Browser, query: string): Promise<{ page: Page; external: string[]; errors: string[] }> {
  const page = await (await newContext(b)).newPage();
  const external: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(t.station.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
      external.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${t.station.url}/capture.html?${query}`);
  return { page, external, errors };
}

describe('capture components (standalone page, fake camera)', () => {
  it('captures a face sequence automatically that extraer-datos-rostro-UI accepts', async () => {
    const { page, external, errors } = await openHarness(browser, 'only=face');
    const guidance = page.getByTestId('face-capture-guidance');
    await page.waitForSelector('[data-testid="face-capture-guidance"]:not([data-phase="loading"])', { timeout: 120_000 });
    await page.getByTestId('harness-face-template').waitFor({ timeout: 120_000 });
    await page.screenshot({ path: screenshotPath('capture-face-done') });
    expect(await guidance.getAttribute('data-phase')).toBe('done');
    const template = await page.getByTestId('harness-face-template').inputValue();
    const decoded = await decodeTemplate(template, 'face');
    expect(decoded.frames.length).toBe(5);
    expect(decoded.device.kind).toBe('camera');
    expect(decoded.frames.map((f) => f.offsetMs)).toEqual([...decoded.frames.map((f) => f.offsetMs)].sort((a, b) => a! - b!));

    const response = await t.post(OPERATIONS.extractFace.path, { template }, t.token(['extract']));
    const data = expectEnvelope(response, 200).data as ResponseOf<'extractFace'>;
    expect(data).toMatchObject({ status: 'OK', exception: false });
    expect(external).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);

  it('says no face is in view when the camera shows nothing, and captures nothing by itself', async () => {
    const { page, external } = await openHarness(blankBrowser, 'only=face&locale=en');
    const guidance = page.getByTestId('face-capture-guidance');
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="face-capture-guidance"]')?.getAttribute('data-analysed')) >= 5,
      undefined,
      { timeout: 120_000 },
    );
    expect(await guidance.getAttribute('data-state')).toBe('no-face');
    expect(await guidance.getAttribute('data-phase')).toBe('live');
    expect(await guidance.textContent()).toBe('No face in view: look at the camera.');
    await page.screenshot({ path: screenshotPath('capture-face-no-face') });
    expect(await page.getByTestId('harness-face-template').count()).toBe(0);
    expect(external).toEqual([]);
  }, 300_000);

  it('builds a document template from uploaded front and back that extraer-datos-dni-UI reads', async () => {
    const person = PEOPLE.ordinary!;
    const front = await renderFront2012(person, { portraitPhoto: Buffer.from(fixture('human-stock-emotions-a-1.jpg')) });
    const back = await renderBack2012(person);
    writeFileSync(path.join(tmp, 'front.png'), front.image);
    writeFileSync(path.join(tmp, 'back.png'), back.image);

    const { page, external, errors } = await openHarness(browser, 'only=document');
    await page.getByTestId('document-capture-front-file').setInputFiles(path.join(tmp, 'front.png'));
    await page.getByTestId('document-capture-back-file').setInputFiles(path.join(tmp, 'back.png'));
    await page.waitForSelector('[data-testid="document-capture-done"]:not([disabled])');
    await page.getByTestId('document-capture-done').click();
    await page.getByTestId('harness-document-template').waitFor();
    await page.screenshot({ path: screenshotPath('capture-document-done') });
    const template = await page.getByTestId('harness-document-template').inputValue();
    const decoded = await decodeTemplate(template, 'document');
    expect(decoded.frames.map((f) => f.side)).toEqual(['front', 'back']);

    const response = await t.post(OPERATIONS.extractDni.path, { template }, t.token(['document']));
    const data = expectEnvelope(response, 200).data as ResponseOf<'extractDni'>;
    expect(data).toMatchObject({ status: 'OK', pdf417Detected: true, mrzDetected: true });
    expect(data.documentInfo).toMatchObject({ documentNumber: person.documentNumber, surname: person.surname });
    expect(external).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);
});
