// npm run eval:dni — DNI reading on synthetic cards with known ground truth, by degradation,
// through the station's HTTPS API; plus the zxing black-box PDF417 photos of ../shared, and the
// station's start with and without the document worker's warm-up.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS, type ResponseOf } from '../common/api/operations.js';
import { encodeTemplate } from '../common/uitemplate/index.js';
import sharp from 'sharp';
import { MrzReader } from '../server/engines/document/mrz/read-mrz.js';
import { decodePdf417 } from '../server/engines/document/pdf417/decode-pdf417.js';
import { defaultModelsDir } from '../server/engines/face/face-engine.js';
import { packageRoot } from '../server/version.js';
import { PEOPLE, type DniPerson } from '../test/dni/dni-person.js';
import { degrade, renderBack2009, renderBack2012, renderFront2012, type Degradation } from '../test/dni/synthetic-card.js';
import { FIXTURES } from './lib/datasets.js';
import { percentile, printTable } from './lib/metrics.js';
import { measureStartup } from './lib/startup.js';
import { benchStation } from './lib/station.js';

type Dni = ResponseOf<'extractDni'>;

const DEGRADATIONS: Record<string, Degradation | null> = {
  limpia: null,
  'inclinada 5°': { rotate: 5, background: '#404040' },
  'perspectiva 5%': { perspective: 0.05, background: '#404040', jpegQuality: 90 },
  'desenfoque 1.5': { blur: 1.5 },
  'JPEG q60': { jpegQuality: 60 },
  'ruido σ8': { noise: 8, jpegQuality: 90 },
  'baja resolución 60%': { scale: 0.6 },
  'mano (todo junto)': { perspective: 0.03, rotate: -3, blur: 0.8, noise: 5, jpegQuality: 80, background: '#505050' },
  'reflejo sobre la MRZ': { glare: { size: 0.35, at: [0.5, 0.85], opacity: 0.9 } },
  'muy borrosa': { blur: 8, scale: 0.5 },
};

const FIELDS = [
  'surname',
  'givenNames',
  'documentNumber',
  'sex',
  'dateOfBirth',
  'issuingDate',
  'expirationDate',
  'order',
  'sequence',
] as const;

function truthOf(p: DniPerson, card: '2012' | '2009'): Record<(typeof FIELDS)[number], unknown> {
  return {
    surname: p.surname,
    givenNames: p.givenNames,
    documentNumber: p.documentNumber,
    sex: p.sex,
    dateOfBirth: p.birthDate,
    issuingDate: p.issueDate,
    expirationDate: p.expiryDate,
    order: p.tramite,
    sequence: p.ejemplar,
    ...(card === '2009' ? {} : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// The station's start without and with the document worker's warm-up (engines.document.warmUp):
// a 2012 card, both sides, read at once after the engine is ready (not the warm-up card's person).
const startupCard = PEOPLE.sevenDigitsMunoz!;
const startupTemplate = await encodeTemplate({
  kind: 'document',
  frames: [await renderFront2012(startupCard), await renderBack2012(startupCard)].map((c, i) => ({
    data: new Uint8Array(c.image),
    side: i === 0 ? ('front' as const) : ('back' as const),
  })),
  device: { kind: 'file' },
});
const startupRows = await measureStartup(
  (warmUp) => ({ engines: { face: { enabled: false, workers: 0, maxQueue: 32 }, document: { enabled: true, warmUp } } }),
  OPERATIONS.extractDni.path,
  JSON.stringify({ template: startupTemplate, parametros: { extractFace: false, useCache: false } }),
);

const s = await benchStation({ engines: { face: { enabled: false, workers: 0, maxQueue: 32 }, document: { enabled: true } } });
const rows: Record<string, unknown>[] = [];
const fieldRows: Record<string, unknown>[] = [];
const cases: Record<string, unknown>[] = [];
try {
  for (const [name, degradation] of Object.entries(DEGRADATIONS)) {
    const perField: Record<string, { right: number; total: number }> = {};
    let fieldsRight = 0;
    let fieldsTotal = 0;
    let wrongValid = 0;
    let docsExact = 0;
    let pdf417 = 0;
    let mrz = 0;
    let rescans = 0;
    const times: number[] = [];
    const people = Object.entries(PEOPLE);
    for (const [key, person] of people) {
      for (const card of ['2012', '2009'] as const) {
        const sides =
          card === '2012' ? [await renderFront2012(person), await renderBack2012(person)] : [await renderBack2009(person)];
        const images = await Promise.all(sides.map(async (c) => (degradation ? (await degrade(c, degradation)).image : c.image)));
        const template = await encodeTemplate({
          kind: 'document',
          frames: images.map((img, i) => ({
            data: new Uint8Array(img),
            side: card === '2012' && i === 0 ? ('front' as const) : ('back' as const),
          })),
          device: { kind: 'file' },
        });
        const r = await s.post(
          OPERATIONS.extractDni.path,
          JSON.stringify({ template, parametros: { extractFace: false, useCache: false } }),
        );
        times.push(r.ms);
        const data = r.json.data as Dni | null;
        if (!data) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.json)}`);
        if (data.pdf417Detected) pdf417++;
        if (data.mrzDetected) mrz++;
        if (data.suggestedAction.startsWith('RESCAN')) rescans++;
        const truth = truthOf(person, card);
        let exact = true;
        for (const f of FIELDS) {
          if (card === '2012' && f === 'expirationDate' && !data.mrzDetected) continue; // the 2012 barcode has no expiry
          const value = data.documentInfo?.[f] ?? null;
          const ok = same(value, truth[f]);
          fieldsTotal++;
          perField[f] ??= { right: 0, total: 0 };
          perField[f].total++;
          if (ok) perField[f].right++;
          if (ok) fieldsRight++;
          else exact = false;
          if (!ok && value !== null && data.documentInfo?.fields[f]?.valid) wrongValid++;
        }
        if (exact) docsExact++;
        cases.push({
          degradation: name,
          person: key,
          card,
          status: data.status,
          suggestedAction: data.suggestedAction,
          ms: Math.round(r.ms),
          exact,
        });
      }
    }
    const n = Object.keys(PEOPLE).length * 2;
    rows.push({
      degradacion: name,
      tarjetas: n,
      campos_exactos: fieldsRight / fieldsTotal,
      documentos_exactos: docsExact / n,
      pdf417: pdf417 / n,
      mrz_2012: mrz / Object.keys(PEOPLE).length,
      pide_reescaneo: rescans / n,
      erroneo_como_valido: wrongValid,
      p50_ms: Math.round(percentile(times, 50)),
      p95_ms: Math.round(percentile(times, 95)),
    });
    fieldRows.push({
      degradacion: name,
      ...Object.fromEntries(Object.entries(perField).map(([k, v]) => [k, Math.round((v.right / v.total) * 1000) / 1000])),
    });
    console.error(`  ${name} listo`);
  }
} finally {
  await s.stop();
}

// The zxing black-box PDF417 photos (clean renders and phone photos): exact text.
const blackbox: { file: string; ok: boolean; ms: number }[] = [];
for (const dir of ['pdf417-1', 'pdf417-2', 'pdf417-3']) {
  const folder = path.join(FIXTURES, 'pdf417', dir);
  for (const f of readdirSync(folder).filter((x) => /\.(png|jpe?g|gif)$/i.test(x))) {
    const expected = path.join(folder, f.replace(/\.[a-z]+$/i, '.txt'));
    const t0 = performance.now();
    const decoded = await decodePdf417(new Uint8Array(readFileSync(path.join(folder, f))), {
      modelsDir: defaultModelsDir(),
    }).catch(() => null);
    let ok = false;
    try {
      ok = decoded !== null && decoded.text === readFileSync(expected, 'utf8');
    } catch {
      ok = decoded !== null;
    }
    blackbox.push({ file: `${dir}/${f}`, ok, ms: performance.now() - t0 });
  }
}

// The photographed TD1 lines of ../shared/fixtures/mrz-lines, stacked back into their zones (14 documents).
// The MRZ model was trained on these lines: the figure overstates it.
const truth = JSON.parse(readFileSync(path.join(FIXTURES, 'mrz-lines', 'ground_truth.json'), 'utf8')) as {
  file: string;
  text: string;
}[];
const reader = new MrzReader({ modelsDir: defaultModelsDir(), poolSize: 1 });
let linesExact = 0;
let linesTotal = 0;
let zonesExact = 0;
const groups = [...new Set(truth.map((t) => t.file.split('-')[0]!))];
for (const g of groups) {
  const lines = truth.filter((t) => t.file.startsWith(`${g}-`));
  // Line 1 opens with the document code, line 3 holds the names (letters and fillers only).
  const order = [...lines].sort((a, b) => rank(a.text) - rank(b.text));
  const images = await Promise.all(
    order.map((l) =>
      sharp(path.join(FIXTURES, 'mrz-lines', l.file))
        .greyscale()
        .png()
        .toBuffer({ resolveWithObject: true }),
    ),
  );
  const width = Math.max(...images.map((i) => i.info.width));
  const height = images.reduce((h, i) => h + i.info.height + 8, 16);
  let top = 8;
  const zone = await sharp({ create: { width: width + 16, height, channels: 3, background: '#ffffff' } })
    .composite(images.map((i) => ({ input: i.data, left: 8, top: (top += i.info.height + 8) - i.info.height - 8 })))
    .png()
    .toBuffer();
  const read = await reader.read(new Uint8Array(zone));
  let all = true;
  order.forEach((l, i) => {
    linesTotal++;
    const ok = read.lines?.[i]?.text === l.text;
    if (ok) linesExact++;
    else all = false;
  });
  if (all) zonesExact++;
}
await reader.close();
function rank(line: string): number {
  if (/^[ACI]/.test(line) && /\d/.test(line.slice(5, 14))) return 0;
  return /^[A-Z<]+$/.test(line) ? 2 : 1;
}

printTable(rows);
console.log('\nCampos exactos por campo:');
printTable(fieldRows);
console.log(
  `\nLíneas MRZ fotografiadas (mrz-lines, reunidas en ${groups.length} zonas): ${linesExact}/${linesTotal} líneas y ${zonesExact}/${groups.length} zonas exactas.`,
);
console.log(
  `\nFotos PDF417 de zxing: ${blackbox.filter((b) => b.ok).length}/${blackbox.length} exactas, p50 ${Math.round(
    percentile(
      blackbox.map((b) => b.ms),
      50,
    ),
  )} ms.`,
);
console.log('\nArranque (extraer-datos-dni-UI, DNI 2012 frente y dorso): listo y primeras lecturas, sin y con warm-up:');
printTable(startupRows);
const out = path.join(packageRoot(), 'bench', 'results', 'eval-dni.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ byDegradation: rows, pdf417Blackbox: { exact: blackbox.filter((b) => b.ok).length, total: blackbox.length }, startup: startupRows, cases }, null, 2)}\n`,
);
console.log(`Escrito ${path.relative(packageRoot(), out)}`);
