// npm run fit:attributes -- --dump FILE — fits the attribute scales the station ships
// (server/operations/face/attribute-scales-data.ts) on the own labels' tuning half, from the raw
// analyses `npm run eval:attributes -- --dump FILE` wrote. Only own-tuning faces are read for the
// fit; the held-out own half is printed beside it. CelebA is never read here.
// `--cues` recomputes the image cues from the pixels with the current analysis/cues.ts first.
import { readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import path from 'node:path';
import { attributeCues, expressionGeometry, type MajorFace } from '../server/engines/index.js';
import { decodeRgb, lumaOf } from '../server/imaging/index.js';
import { facialHairPrior, logit, smileFeatures } from '../server/operations/index.js';
import { packageRoot } from '../server/version.js';
import { ownPhotos, type AttributePhoto, type LabelName } from './lib/attribute-sets.js';
import { fitLogistic, predict, type Example } from './lib/logistic.js';
import { areaUnderCurve, percentile, printTable } from './lib/metrics.js';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const dumpFile = arg('--dump');
if (!dumpFile) throw new Error('usage: fit-attributes --dump FILE (from eval:attributes -- --dump FILE)');
const all = JSON.parse(readFileSync(dumpFile, 'utf8')) as { photo: AttributePhoto; face: MajorFace }[];
// CelebA is left out before anything is computed: nothing here may be fitted on it.
const own = all.filter(({ photo }) => photo.split === 'own-tuning' || photo.split === 'own-validation');
// The halves as attribute-sets.ts draws them now.
const splitOf = new Map(ownPhotos().map((p) => [p.file, p.split]));
for (const { photo } of own) photo.split = splitOf.get(photo.file) ?? photo.split;

if (process.argv.includes('--cues')) {
  for (const item of own) {
    const { rgb, width, height } = await decodeRgb(readFileSync(item.photo.file));
    const hasMesh = item.face.points68.some((p, i) => p[0] !== item.face.landmarks68[i]![0]);
    item.face.cues = attributeCues(lumaOf(rgb, width, height), rgb, item.face.landmarks68, hasMesh ? item.face.points68 : null);
  }
}

/** Each fitted scale: its features from a face, the label it answers, and the prior its weights are held to. */
const FITS: {
  name: 'glasses' | 'beard' | 'mustache' | 'openMouth' | 'smile';
  label: LabelName;
  features: (face: MajorFace) => number[];
  penalty: number;
  prior?: number[];
}[] = [
  // A trait's cue is already a probability by construction: the fit moves and stretches its logit,
  // held to the identity where its few positives cannot say more.
  {
    name: 'glasses',
    label: 'eyeglasses',
    features: (f) => [logit(Math.max(f.cues!.glasses, f.cues!.darkGlasses))],
    penalty: 2,
    prior: [1],
  },
  { name: 'beard', label: 'beard', features: (f) => [logit(f.cues!.beard * facialHairPrior(f))], penalty: 2, prior: [1] },
  {
    name: 'mustache',
    label: 'mustache',
    features: (f) => [logit(f.cues!.mustache * facialHairPrior(f))],
    penalty: 2,
    prior: [1],
  },
  { name: 'openMouth', label: 'mouth_open', features: (f) => [f.mouthOpenness], penalty: 0.01 },
  { name: 'smile', label: 'smiling', features: smileFeatures, penalty: 0.5 },
];

const examplesOf = (split: string, label: LabelName, features: (face: MajorFace) => number[]): Example[] =>
  own.flatMap(({ photo, face }) => {
    const y = photo.labels[label];
    return photo.split === split && typeof y === 'boolean' && face.cues ? [{ x: features(face), y }] : [];
  });

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const fitted: Record<string, number[]> = {};
const rows = FITS.map(({ name, label, features, penalty, prior }) => {
  const tuning = examplesOf('own-tuning', label, features);
  const w = fitLogistic(tuning, penalty, prior).map(r4);
  fitted[name] = w;
  const measure = (examples: Example[]) => {
    const points = examples.map((e) => ({ score: predict(w, e.x), positive: e.y }));
    const pos = points.filter((p) => p.positive);
    const neg = points.filter((p) => !p.positive);
    return {
      auc: Math.round(areaUnderCurve(points) * 1000) / 1000,
      at50: `${pos.filter((p) => p.score >= 0.5).length}/${pos.length} ${neg.filter((p) => p.score >= 0.5).length}/${neg.length}`,
    };
  };
  const t = measure(tuning);
  const v = measure(examplesOf('own-validation', label, features));
  return {
    scale: name,
    weights: w.join(' '),
    tuning_auc: t.auc,
    tuning_at50: t.at50,
    validation_auc: v.auc,
    validation_at50: v.at50,
  };
});
printTable(rows);

// The mesh's expression measures by the own labels' expression, on the tuning half: where the
// brows and lids of a raised-brow, frowning or squinting face stand against the neutral ones.
const byExpression = new Map<string, { brow: number[]; eyes: number[] }>();
for (const { photo, face } of own) {
  if (photo.split !== 'own-tuning' || !photo.expression) continue;
  const g = expressionGeometry(face.points68);
  const entry = byExpression.get(photo.expression) ?? { brow: [], eyes: [] };
  entry.brow.push(g.browHeight);
  entry.eyes.push((face.leftEyeOpenness + face.rightEyeOpenness) / 2);
  byExpression.set(photo.expression, entry);
}
const q = (v: number[], p: number) => Math.round(percentile(v, p * 100) * 1000) / 1000;
printTable(
  [...byExpression].map(([expression, m]) => ({
    expression,
    faces: m.brow.length,
    brow_p10: q(m.brow, 0.1),
    brow_p50: q(m.brow, 0.5),
    brow_p90: q(m.brow, 0.9),
    eyes_p10: q(m.eyes, 0.1),
    eyes_p50: q(m.eyes, 0.5),
  })),
);
const neutral = byExpression.get('NEUTRAL');
const expression = neutral
  ? // Beyond every neutral face of the tuning half: brows higher read raised, lower drawn down,
    // lids narrower narrowed (its 23 neutral faces place no finer quantile).
    { browRaised: q(neutral.brow, 1), browLowered: q(neutral.brow, 0), eyesNarrowed: q(neutral.eyes, 0) }
  : null;
console.log('expression thresholds', expression);

const counts = Object.fromEntries(
  FITS.map(({ name, label }) => {
    const tuning = examplesOf('own-tuning', label, () => []);
    return [name, { positives: tuning.filter((e) => e.y).length, negatives: tuning.filter((e) => !e.y).length }];
  }),
);
if (process.argv.includes('--write')) {
  const file = path.join(packageRoot(), 'server', 'operations', 'face', 'attribute-scales-data.ts');
  const text = `// Written by \`npm run fit:attributes\` from the tuning half of bench/labels/attributes-own.csv: do not edit.
// Each scale's weights: intercept, then one per feature (attribute-scales.ts). Faces fitted on: ${JSON.stringify(counts)}.
export const FITTED_SCALES = ${JSON.stringify(fitted)} as const;

/** Beyond every neutral face of the tuning half (bench/fit-attributes.ts). */
export const EXPRESSION_THRESHOLDS = ${JSON.stringify(expression)} as const;
`;
  writeFileSync(file, await format(text, { ...(await resolveConfig(file)), filepath: file }));
  console.log(`wrote ${path.relative(packageRoot(), file)}`);
}
