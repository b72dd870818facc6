// npm run eval:attributes — every face attribute the station reports (traits, emotion, expression,
// gender, age) against labels, on four splits: the own labels (bench/labels) in two halves by
// person, the half the scales are fitted on and a held-out half, and CelebA's two dev sets in two
// halves by identity. CelebA is non-commercial: measured here, nothing fitted on it.
// `-- --dump FILE` also writes each face's raw analysis beside its labels (for bench/fit-attributes.ts);
// `-- --from FILE` reads them back instead of running the engine, the image cues measured again.
// Writes bench/results/eval-attributes.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { extractParametersSchema } from '../common/api/face-schemas.js';
import { attributeCues, type MajorFace } from '../server/engines/index.js';
import { decodeRgb, lumaOf } from '../server/imaging/index.js';
import { emotionOf, expressionOf, GENDER_MIN_PROBABILITY, traitsOf } from '../server/operations/index.js';
import { packageRoot } from '../server/version.js';
import { celebaPhotos, ownPhotos, SPLITS, type AttributePhoto, type LabelName } from './lib/attribute-sets.js';
import { ANALYZE_FOR_EVAL, analyzeFiles, startEngine } from './lib/engine.js';
import { areaUnderCurve, median, printTable } from './lib/metrics.js';

const dumpAt = process.argv.indexOf('--dump');
const dumpFile = dumpAt >= 0 ? process.argv[dumpAt + 1] : undefined;

const fromAt = process.argv.indexOf('--from');
const fromFile = fromAt >= 0 ? process.argv[fromAt + 1] : undefined;

const photos = [...ownPhotos(), ...celebaPhotos()];
console.error(`eval:attributes: ${photos.length} photos`);
const params = extractParametersSchema.parse({});

/**
 * Each photo's major face: from the engine, or with `--from FILE` from an earlier --dump, its
 * image cues measured again from the pixels by the current analysis/cues.ts (what changes when
 * the networks do not).
 */
async function majorFaces(): Promise<(MajorFace | null)[]> {
  if (fromFile) {
    const dumped = new Map(
      (JSON.parse(readFileSync(fromFile, 'utf8')) as { photo: AttributePhoto; face: MajorFace }[]).map((d) => [
        d.photo.file,
        d.face,
      ]),
    );
    return Promise.all(
      photos.map(async (photo) => {
        const face = dumped.get(photo.file);
        if (!face) return null;
        const { rgb, width, height } = await decodeRgb(readFileSync(photo.file));
        const hasMesh = face.points68.some((p, i) => p[0] !== face.landmarks68[i]![0] || p[1] !== face.landmarks68[i]![1]);
        return {
          ...face,
          cues: attributeCues(lumaOf(rgb, width, height), rgb, face.landmarks68, hasMesh ? face.points68 : null),
        };
      }),
    );
  }
  const engine = startEngine();
  await engine.ready();
  const analyses = await analyzeFiles(
    engine,
    photos.map((p) => p.file),
    { ...ANALYZE_FOR_EVAL, embedding: false, traits: true, ageGender: true, emotion: true },
  );
  await engine.close();
  return analyses.map((a) => a?.major ?? null);
}
const faces = await majorFaces();

/** One face as the station reports it. */
function reading(face: MajorFace) {
  const traits = traitsOf(face, params);
  return { traits, emotion: emotionOf(face), expression: expressionOf(face, traits) };
}
type Reading = ReturnType<typeof reading>;
const scored = photos.flatMap((photo, i) => {
  const face = faces[i];
  return face ? [{ photo, face, reading: reading(face) }] : [];
});
type Scored = (typeof scored)[number];

const SMILES = new Set(['SMILE', 'SMILE_OPENED_JAW']);
/** Each 0-100 value reported, and the label it claims. */
const SCALES: { name: string; label: LabelName; score: (r: Reading, face: MajorFace) => number | null }[] = [
  { name: 'glasses', label: 'eyeglasses', score: (r) => r.traits.glasses },
  { name: 'darkGlasses', label: 'sunglasses', score: (r) => r.traits.darkGlasses },
  { name: 'beard', label: 'beard', score: (r) => r.traits.beard },
  { name: 'mustache', label: 'mustache', score: (r) => r.traits.mustache },
  { name: 'hat', label: 'hat', score: (r) => r.traits.hat },
  { name: 'openMouth', label: 'mouth_open', score: (r) => r.traits.openMouth },
  { name: 'emotion.happiness', label: 'smiling', score: (r) => r.emotion?.happiness ?? null },
  // The expression network's own happiness, unrounded, before the fitted scale maps it.
  {
    name: 'expression net happy',
    label: 'smiling',
    score: (r, face) => (r.emotion === null || !face.emotion ? null : 100 * (face.emotion.happy ?? 0)),
  },
  // The expression as a class: 100 where it is SMILE or SMILE_OPENED_JAW, so its AUC is the mean
  // of the share of smiles it names and the share of others it does not; and by its confidence
  // (a smile's probability for SMILE*, its complement for the others, UNKNOWN lowest).
  { name: 'expression SMILE*', label: 'smiling', score: (r) => (SMILES.has(r.expression.type) ? 100 : 0) },
  {
    name: 'expression SMILE* by confidence',
    label: 'smiling',
    score: (r) =>
      SMILES.has(r.expression.type)
        ? r.expression.confidence
        : r.expression.type === 'UNKNOWN'
          ? -1
          : 100 - r.expression.confidence,
  },
];

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const share = (n: number, of: number) => (of ? r3(n / of) : null);
// What a reported value means to whoever reads one photo's answer: the share of labelled and of
// unlabelled photos reported at 50 or more (the AUC says only how well the values rank).
const REPORTED = 50;

function scaleRows(faces: Scored[]) {
  return SCALES.flatMap(({ name, label, score }) => {
    const points = faces.flatMap(({ photo, face, reading: r }) => {
      const positive = photo.labels[label];
      const s = score(r, face);
      return positive === undefined || positive === null || s === null ? [] : [{ score: s, positive }];
    });
    const positives = points.filter((p) => p.positive);
    const negatives = points.filter((p) => !p.positive);
    if (!positives.length || !negatives.length) return [];
    return [
      {
        scale: name,
        label,
        positives: positives.length,
        negatives: negatives.length,
        auc: r3(areaUnderCurve(points)),
        labelled_at_50: share(positives.filter((p) => p.score >= REPORTED).length, positives.length),
        unlabelled_at_50: share(negatives.filter((p) => p.score >= REPORTED).length, negatives.length),
      },
    ];
  });
}

/** The gender estimate against a Male label (CelebA's). */
function genderRow(faces: Scored[]) {
  const points = faces.flatMap(({ photo, face }) =>
    face.gender && typeof photo.labels.male === 'boolean'
      ? [{ score: face.gender.type === 'MALE' ? face.gender.score : 1 - face.gender.score, positive: photo.labels.male }]
      : [],
  );
  if (!points.length) return null;
  const named = (p: { score: number }) => Math.max(p.score, 1 - p.score) >= GENDER_MIN_PROBABILITY;
  return {
    men: points.filter((p) => p.positive).length,
    women: points.filter((p) => !p.positive).length,
    auc_male: r3(areaUnderCurve(points)),
    accuracy: share(points.filter((p) => p.score >= 0.5 === p.positive).length, points.length),
    unknown: share(points.filter((p) => !named(p)).length, points.length),
    wrong_among_named: share(points.filter((p) => named(p) && p.score >= 0.5 !== p.positive).length, points.filter(named).length),
  };
}

/** The age estimate against CelebA's only age label, Young. */
function ageRow(faces: Scored[]) {
  const points = faces.flatMap(({ photo, face }) =>
    face.age === null || typeof photo.labels.young !== 'boolean'
      ? []
      : [{ score: -face.age, age: face.age, positive: photo.labels.young }],
  );
  if (!points.length) return null;
  const ages = (young: boolean) => points.filter((p) => p.positive === young).map((p) => p.age);
  return {
    young: ages(true).length,
    not_young: ages(false).length,
    auc_young: r3(areaUnderCurve(points)),
    median_age_young: Math.round(median(ages(true)) * 10) / 10,
    median_age_not_young: Math.round(median(ages(false)) * 10) / 10,
  };
}

/** The expressions reported, by the own label's expression (rows) and as a whole. */
function expressionTable(faces: Scored[]) {
  const types = new Map<string, number>();
  const byLabel = new Map<string, Map<string, number>>();
  for (const { photo, reading: r } of faces) {
    types.set(r.expression.type, (types.get(r.expression.type) ?? 0) + 1);
    if (!photo.expression) continue;
    const row = byLabel.get(photo.expression) ?? new Map<string, number>();
    row.set(r.expression.type, (row.get(r.expression.type) ?? 0) + 1);
    byLabel.set(photo.expression, row);
  }
  return {
    reported: Object.fromEntries([...types].sort((a, b) => b[1] - a[1])),
    unknown: share(types.get('UNKNOWN') ?? 0, faces.length),
    by_label: Object.fromEntries([...byLabel].map(([label, row]) => [label, Object.fromEntries(row)])),
  };
}

/** The hat's false alarms among the hatless with a fringe and without. */
function hatFringe(faces: Scored[]) {
  const hatless = faces.filter(({ photo, reading: r }) => photo.labels.hat === false && r.traits.hat !== null);
  const at50 = (list: Scored[]) => share(list.filter(({ reading: r }) => r.traits.hat! >= REPORTED).length, list.length);
  const fringe = hatless.filter(({ photo }) => photo.labels.fringe === true);
  const none = hatless.filter(({ photo }) => photo.labels.fringe === false);
  return { fringe: fringe.length, fringe_at_50: at50(fringe), no_fringe: none.length, no_fringe_at_50: at50(none) };
}

const report: Record<string, unknown> = {};
for (const split of SPLITS) {
  const inSplit = photos.filter((p) => p.split === split);
  const inFaces = scored.filter(({ photo }) => photo.split === split);
  const scales = scaleRows(inFaces);
  const gender = genderRow(inFaces);
  const age = ageRow(inFaces);
  const expression = expressionTable(inFaces);
  const hat = hatFringe(inFaces);
  // Faces whose region traits are not read (null, with traits.motivo): too small, turned, dark or half seen.
  const traitsUnread = share(inFaces.filter(({ reading: r }) => r.traits.motivo !== undefined).length, inFaces.length);
  console.log(
    `\n== ${split}: ${inFaces.length} of ${inSplit.length} photos with a face, ${new Set(inSplit.map((p) => p.identity)).size} people`,
  );
  printTable(scales);
  if (gender) printTable([gender]);
  if (age) printTable([age]);
  console.log(`expression reported: ${JSON.stringify(expression.reported)}`);
  if (Object.keys(expression.by_label).length) console.log(`  by label: ${JSON.stringify(expression.by_label)}`);
  console.log(`hat among the hatless: ${JSON.stringify(hat)}`);
  console.log(`traits not read: ${traitsUnread}`);
  report[split] = {
    photos: inSplit.length,
    faces: inFaces.length,
    people: new Set(inSplit.map((p) => p.identity)).size,
    scales: Object.fromEntries(scales.map(({ scale, ...r }) => [scale, r])),
    gender,
    age,
    expression,
    hat_among_hatless: hat,
    traits_unread: traitsUnread,
  };
}
console.log('\nAUC = chance a labelled face outscores an unlabelled one; own-tuning is what the scales are fitted on.');

const out = path.join(packageRoot(), 'bench', 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'eval-attributes.json'),
  `${JSON.stringify(
    {
      splits: {
        'own-tuning': 'bench/labels/attributes-own.csv, its people of hash parity 0: every shipped scale is fitted here',
        'own-validation': 'bench/labels/attributes-own.csv, the other people: held out',
        'celeba-a': 'attributes-celeba-dev + faces-celeba-dev, identities of hash parity 0: measured only',
        'celeba-b': 'the other CelebA identities: measured only',
      },
      note: 'darkGlasses on CelebA against hand labels of its Eyeglasses photos (bench/lib/dark-glasses-labels.ts)',
      analyses: fromFile
        ? "the networks' outputs from an earlier engine run (--from), the image cues measured again"
        : 'the engine',
      ...report,
    },
    null,
    2,
  )}\n`,
);

if (dumpFile) {
  const strip = (face: MajorFace) => ({ ...face, embedding: null, thumbnail: null, portrait: null });
  writeFileSync(
    dumpFile,
    JSON.stringify(scored.map(({ photo, face }): { photo: AttributePhoto; face: MajorFace } => ({ photo, face: strip(face) }))),
  );
}
