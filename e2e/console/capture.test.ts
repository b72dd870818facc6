import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type ResponseOf } from '../../common/api/operations.js';
import { decodeTemplate } from '../../common/uitemplate/index.js';
import { packageRoot } from '../../server/version.js';
import { PEOPLE } from '../../test/dni/dni-person.js';
import { renderBack2012, renderFront2012 } from '../../test/dni/synthetic-card.js';
import { BROWSER_MISSING, launchBrowser, newContext, screenshotPath } from '../helpers/browser.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import { FIXTURES, fixture } from '../helpers/templates.js';

// The capture components' standalone page, in Chromium with a fake camera, against the real
// station: guidance models served by the station, templates read by the real engines.
let t: TestStation;
let browser: Browser;
let blankBrowser: Browser;
let cardBrowser: Browser;
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

/** RGB pixels to a y4m clip (I420, BT.601 studio range, as Chromium reads it) of `frames` identical frames. */
function y4mClip(file: string, rgb: Buffer, width: number, height: number, frames: number): void {
  const y = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = [rgb[3 * i]!, rgb[3 * i + 1]!, rgb[3 * i + 2]!];
    y[i] = Math.round(16 + (219 / 255) * (0.299 * r + 0.587 * g + 0.114 * b));
    const x = i % width;
    const row = Math.floor(i / width);
    if (x % 2 === 0 && row % 2 === 0) {
      const c = (row / 2) * (width / 2) + x / 2;
      u[c] = Math.round(128 + (224 / 255) * (-0.1687 * r - 0.3313 * g + 0.5 * b));
      v[c] = Math.round(128 + (224 / 255) * (0.5 * r - 0.4187 * g - 0.0813 * b));
    }
  }
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F5:1 Ip A1:1 C420jpeg\n`);
  writeFileSync(file, Buffer.concat([header, ...Array.from({ length: frames }, () => frame)]));
}

/** A 1280x720 camera view of a synthetic DNI front held inside the outline, on a dark desk. */
async function cardClip(file: string, card: Buffer): Promise<void> {
  const [width, height] = [1280, 720];
  const inner = await sharp(card).resize({ width: 880 }).png().toBuffer();
  const meta = await sharp(inner).metadata();
  const { data } = await sharp({ create: { width, height, channels: 3, background: { r: 48, g: 52, b: 60 } } })
    .composite([{ input: inner, left: (width - 880) / 2, top: Math.round((height - meta.height!) / 2) }])
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  y4mClip(file, data, width, height, 3);
}

const person = PEOPLE.ordinary!;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'enrolla-capture-'));
  t = await startTestStation({}, { consoleDir: path.join(packageRoot(), 'dist', 'renderer'), waitForEngines: true });
  if (BROWSER_MISSING) return;
  browser = await launchBrowser({ fakeVideo: path.join(FIXTURES, 'video', 'real2_640x480_15fps_6s.mjpeg') });
  blackClip(path.join(tmp, 'black.y4m'));
  blankBrowser = await launchBrowser({ fakeVideo: path.join(tmp, 'black.y4m') });
  const front = await renderFront2012(person, { portraitPhoto: Buffer.from(fixture('human-stock-emotions-a-1.jpg')) });
  await cardClip(path.join(tmp, 'card.y4m'), front.image);
  cardBrowser = await launchBrowser({ fakeVideo: path.join(tmp, 'card.y4m') });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await blankBrowser?.close();
  await cardBrowser?.close();
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

describe('guidance models served by the station', () => {
  it('serves Human and TensorFlow.js WebAssembly files at /modelos/ without a token, to any LAN origin, and nothing else', async () => {
    const model = await t.send('/modelos/human/blazeface.json');
    expect(model.status).toBe(200);
    expect(model.headers['access-control-allow-origin']).toBe('*');
    expect(model.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const wasm = await t.send('/modelos/tfjs-wasm/tfjs-backend-wasm-simd.wasm');
    expect(wasm.status).toBe(200);
    expect(wasm.headers['content-type']).toBe('application/wasm');
    for (const hidden of [
      '/modelos/face-api/face_recognition_model.bin',
      '/modelos/manifest.json',
      '/modelos/human/../manifest.json',
    ]) {
      expect((await t.send(hidden)).status, hidden).toBe(404);
    }
  });
});

describe.skipIf(BROWSER_MISSING !== null)('capture components (standalone page, fake camera)', () => {
  it('captures a face sequence automatically that extraer-datos-rostro-UI accepts', async () => {
    const { page, external, errors } = await openHarness(browser, 'only=face&backend=wasm');
    const guidance = page.getByTestId('face-capture-guidance');
    await page.waitForSelector('[data-testid="face-capture-guidance"]:not([data-phase="loading"])', { timeout: 120_000 });
    await page.getByTestId('harness-face-template').waitFor({ timeout: 120_000 });
    await page.screenshot({ path: screenshotPath('capture-face-done') });
    expect(await guidance.getAttribute('data-phase')).toBe('done');
    const template = await page.getByTestId('harness-face-template').inputValue();
    const decoded = await decodeTemplate(template, 'face');
    expect(decoded.frames.length).toBe(5);
    expect(decoded.device.kind).toBe('camera');
    // Headless Chromium here has no GPU: the WebAssembly backend is the one that must work.
    expect(decoded.settings.guidanceBackend).toBe('wasm');
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
    await expect
      .poll(async () => Number(await guidance.getAttribute('data-analysed')), { timeout: 120_000, interval: 250 })
      .toBeGreaterThanOrEqual(5);
    expect(await guidance.getAttribute('data-state')).toBe('no-face');
    // Picked by the component: headless Chromium's WebGL is software (SwiftShader), so WebAssembly.
    expect(await guidance.getAttribute('data-backend')).toBe('wasm');
    expect(await guidance.getAttribute('data-phase')).toBe('live');
    expect(await guidance.textContent()).toBe('No face in view: look at the camera.');
    await page.screenshot({ path: screenshotPath('capture-face-no-face') });
    expect(await page.getByTestId('harness-face-template').count()).toBe(0);
    expect(external).toEqual([]);
  }, 300_000);

  it('builds a document template from uploaded front and back that extraer-datos-dni-UI reads', async () => {
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

  it('captures a steady card from the camera by itself; the station reads its PDF417', async () => {
    const { page, external, errors } = await openHarness(cardBrowser, 'only=document');
    const preview = page.getByTestId('document-capture-front-preview');
    await preview.waitFor({ timeout: 120_000 });
    expect(await preview.getAttribute('data-source')).toBe('camera');
    // The same card stays in view: the back is not taken from it, however long it stays.
    await page.locator('[data-testid="document-capture-guidance"][data-state="ok"][data-awaiting-flip="true"]').waitFor();
    expect(await page.getByTestId('document-capture-guidance').textContent()).toBe('Dé vuelta el documento y muestre el dorso.');
    await page.waitForTimeout(1500);
    expect(await page.getByTestId('document-capture-back-preview').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('capture-document-camera') });
    await page.getByTestId('document-capture-done').click();
    await page.getByTestId('harness-document-template').waitFor();
    const template = await page.getByTestId('harness-document-template').inputValue();
    const decoded = await decodeTemplate(template, 'document');
    expect(decoded.frames.map((f) => [f.side, f.width, f.height])).toEqual([['front', 1280, 720]]);
    expect(decoded.device.kind).toBe('camera');

    const response = await t.post(OPERATIONS.extractDni.path, { template }, t.token(['document']));
    const data = expectEnvelope(response, 200).data as ResponseOf<'extractDni'>;
    expect(data).toMatchObject({ pdf417Detected: true });
    expect(data.documentInfo).toMatchObject({ documentNumber: person.documentNumber, surname: person.surname });
    expect(external).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);

  it('embeds in a page of another origin on the LAN as one module: models from the station, template OK', async () => {
    // A front end of its own (http://localhost is a secure context), loading the station's module.
    const html = `<!doctype html><html><body><div id="face"></div><textarea id="out"></textarea>
<script type="module">
import { mountFaceCapture } from '${t.station.url}/embed/enrolla-capture.js';
mountFaceCapture(document.getElementById('face'), {
  locale: 'en', maxFrames: 3,
  onCapture: (face) => { const out = document.getElementById('out'); out.value = face.template; out.dataset.frames = String(face.frames); },
});
</script></body></html>`;
    const host: Server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => host.listen(0, 'localhost', resolve));
    try {
      const origin = `http://localhost:${(host.address() as AddressInfo).port}`;
      const page = await (await newContext(browser)).newPage();
      const foreign: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => {
        if (![t.station.url, origin, 'data:', 'blob:'].some((p) => r.url().startsWith(p))) foreign.push(r.url());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}/`);
      await page.locator('#out[data-frames="3"]').waitFor({ timeout: 120_000 });
      await page.screenshot({ path: screenshotPath('capture-embedded-other-origin') });
      const template = await page.locator('#out').inputValue();
      const response = await t.post(OPERATIONS.extractFace.path, { template }, t.token(['extract']));
      expect((expectEnvelope(response, 200).data as ResponseOf<'extractFace'>).status).toBe('OK');
      expect(foreign).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      host.close();
    }
  }, 300_000);
});
