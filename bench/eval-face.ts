// npm run eval:face [-- --dataset DIR] [--celeba] [--write-calibration]
// Recognition accuracy of the shipped descriptor and of its two parts, on labelled photo sets.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  assessQuality,
  FACE_MODEL_ID,
  IDENTIFICATION_CENTRED_IMPOSTOR_MODEL,
  IDENTIFICATION_DIM,
  IDENTIFICATION_IMPOSTOR_MODEL,
  identificationView,
  IMPOSTOR_MODEL,
  MATCHING_ANALYSIS,
} from '../server/engines/index.js';
import { selectFrames } from '../server/operations/index.js';
import { configSchema } from '../server/config/index.js';
import {
  CENTRING_SHARE,
  confidenceOf,
  cosine,
  identificationThreshold,
  type ImpostorModel,
  normalize,
  thresholdForFmr,
} from '../server/matching/index.js';
import { packageRoot } from '../server/version.js';
import { assortedFaces, celeba, facesPairs, FIXTURES, folderPerPerson, type LabelledImage } from './lib/datasets.js';
import { analyzeFiles, ANALYZE_FOR_EVAL, startEngine } from './lib/engine.js';
import { detectionCensus } from './lib/detection-census.js';
import { hardestPhotos } from './lib/hardest-photos.js';
import { allPairs, printTable, verificationMetrics, type ScoredPair } from './lib/metrics.js';
import { centringShifts, openSetOwnPeople, openSetOwnPeopleHalvings, type Spread } from './lib/open-set-own-people.js';
import { openSetAtScale, scoreForConfidence, type OpenSetAtScale } from './lib/open-set-scale.js';
import { CROP_KINDS, facesAsSent, type CropKind } from './lib/tight-crops.js';

/** The stored vector's MobileFaceNet part, which identification compares (fused-descriptor.ts identificationView). */
const IDENTIFICATION_MODEL_ID = 'mobilefacenet192-arcface-2landmarks-flip';
/** Its face-api ResNet part (the four views' mean direction). */
const RESNET_PART_ID = 'faceapi-resnet128-4views';

const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string' },
    celeba: { type: 'boolean', default: false },
    'write-calibration': { type: 'boolean', default: false },
    /** Also each photo's face as integrators send it: tight, filling the frame, enlarged, a portrait. */
    crops: { type: 'boolean', default: true },
  },
});

interface Sample extends LabelledImage {
  embeddings: Record<string, Float32Array | null>;
  iod: number;
  yaw: number;
  /** Whether the station's enrollment would take the photo as a sample (its quality and eye-distance gates). */
  enrollable: boolean;
  /** Whether identification would search with the photo (its probe gates; LOW_QUALITY otherwise). */
  probes: boolean;
  /** Faces found in the photo (the largest is the one measured). */
  faces: number;
}

const datasetName = args.dataset
  ? path.basename(path.resolve(args.dataset))
  : args.celeba
    ? 'faces-celeba-dev'
    : 'faces-lfw+faces-pairs+faces';
const images: LabelledImage[] = args.dataset
  ? folderPerPerson(path.resolve(args.dataset))
  : args.celeba
    ? celeba('faces-celeba-dev')
    : [...folderPerPerson(path.join(FIXTURES, 'faces-lfw')), ...facesPairs(), ...assortedFaces()];

const engine = startEngine();
await engine.ready();
const started = Date.now();
const analyses = await analyzeFiles(
  engine,
  images.map((i) => i.file),
  ANALYZE_FOR_EVAL,
);
const seconds = (Date.now() - started) / 1000;
// Photos whose frame was contrast-equalised (CLAHE) for detection and landmarks; the crops are cut unequalised.
const equalised = analyses.filter((a) => a?.major && a.clahe > 0).length;
const crops = args.crops ? await facesAsSentOf(engine) : [];
await engine.close();

/**
 * Each photo's face as integrators send it (bench/lib/tight-crops.ts), analysed as the operations
 * analyse a template's frame; what selection makes of it, and its descriptor.
 */
async function facesAsSentOf(e: typeof engine) {
  const made: {
    image: number;
    kind: CropKind;
    faceShare: number;
    status: string;
    embedding: Float32Array | null;
    padded: boolean;
  }[] = [];
  let done = 0;
  await Promise.all(
    images.map(async (img, i) => {
      const full = analyses[i];
      if (!full?.major) return;
      for (const crop of await facesAsSent(readFileSync(img.file), full.major.box, full, i + 1)) {
        const analysis = await e.analyzeImage(new Uint8Array(crop.image), MATCHING_ANALYSIS).catch(() => null);
        const selection = analysis ? selectFrames([analysis], { onlyMajor: true, impostors: IMPOSTOR_MODEL }) : null;
        made.push({
          image: i,
          kind: crop.kind,
          faceShare: crop.faceShare,
          status: !selection ? 'ERROR' : selection.ok ? 'OK' : selection.status,
          embedding: selection?.ok ? selection.best.face.embedding : null,
          padded: analysis?.timings['detect-padded'] !== undefined,
        });
      }
      if (++done % 50 === 0) process.stderr.write(`  variantes ${done}/${images.length}\n`);
    }),
  );
  return made;
}

// The gates enroll-UI applies to a sample and identificar-UI to a probe, at the station's defaults.
const { enrollMinQuality, enrollMinIod, identifyMinQuality, identifyMinIod } = configSchema.shape.matching.parse(undefined);
const samples: Sample[] = images.map((img, i) => {
  const face = analyses[i]?.major ?? null;
  const quality = face ? assessQuality(face).score : 0;
  return {
    ...img,
    iod: face?.iod ?? 0,
    yaw: face?.yaw ?? 0,
    enrollable: face !== null && face.iod >= enrollMinIod && quality >= enrollMinQuality,
    probes: face !== null && face.iod >= identifyMinIod && quality >= identifyMinQuality,
    faces: analyses[i]?.faces.length ?? 0,
    embeddings: {
      [FACE_MODEL_ID]: face?.embedding ?? null,
      [IDENTIFICATION_MODEL_ID]: face?.embedding ? identificationView(face.embedding) : null,
      [RESNET_PART_ID]: face?.embedding ? normalize(face.embedding.subarray(IDENTIFICATION_DIM)) : null,
    },
  };
});

const BASE_MODELS = [...new Set(samples.flatMap((s) => Object.keys(s.embeddings)))].filter((m) =>
  samples.some((s) => s.embeddings[m]),
);
/**
 * The stored vector's two parts fused at score level with weights from this dataset instead of
 * the LFW sets' (each cosine z-normalised by its impostor scores here): what re-weighting on the
 * customer's own people could gain.
 */
const FUSIONS: Record<string, string[]> = {
  [`fusion:${IDENTIFICATION_MODEL_ID}+${RESNET_PART_ID}`]: [IDENTIFICATION_MODEL_ID, RESNET_PART_ID],
};
/**
 * What the station identifies with: the MobileFaceNet part's cosine less the probe's (first
 * argument's) share of its similarity to the gallery's mean sample, here the mean of every photo of
 * the set, unshrunk (matching/gallery-centre.ts). Its impostors are what identification's shipped
 * calibration fits.
 */
const STATION_IDENTIFICATION = `${IDENTIFICATION_MODEL_ID}, centred`;
const CENTRED: Record<string, string> = { [STATION_IDENTIFICATION]: IDENTIFICATION_MODEL_ID };
const parts = (model: string) => FUSIONS[model] ?? (CENTRED[model] ? [CENTRED[model]] : [model]);
const has = (model: string, s: Sample) => parts(model).every((m) => s.embeddings[m]);

function rawPairs(model: string, filter: (s: Sample) => boolean, score: (a: Sample, b: Sample) => number): ScoredPair[] {
  return allPairs(
    samples.filter((s) => has(model, s) && filter(s)),
    score,
  );
}

const zStats = new Map<string, { mean: number; std: number }>();
for (const m of BASE_MODELS) {
  const v = verificationMetrics(
    rawPairs(
      m,
      () => true,
      (a, b) => cosine(a.embeddings[m]!, b.embeddings[m]!),
    ),
  );
  zStats.set(m, { mean: v.impostorMean, std: v.impostorStd });
}

/**
 * Each photo's centring shift as a probe of the centred models, by its embedding, on the set's own
 * mean sample in full, as a gallery of thousands is centred (and as the shipped calibration is fitted).
 */
const probeShifts = new Map(
  Object.entries(CENTRED).map(([centred, base]) => [
    centred,
    centringShifts(
      samples.filter((s) => s.embeddings[base]).map((s) => ({ embedding: s.embeddings[base]! })),
      CENTRING_SHARE,
    ),
  ]),
);

function similarity(model: string, a: Sample, b: Sample): number {
  const centredOn = CENTRED[model];
  if (centredOn) {
    const probe = a.embeddings[centredOn]!;
    return cosine(probe, b.embeddings[centredOn]!) - probeShifts.get(model)!.get(probe)!;
  }
  const list = FUSIONS[model];
  if (!list) return cosine(a.embeddings[model]!, b.embeddings[model]!);
  let z = 0;
  for (const m of list) z += (cosine(a.embeddings[m]!, b.embeddings[m]!) - zStats.get(m)!.mean) / zStats.get(m)!.std;
  return z;
}

function pairsOf(model: string, filter: (s: Sample) => boolean = () => true): ScoredPair[] {
  return rawPairs(model, filter, (a, b) => similarity(model, a, b));
}

/** Closed-set rank-1: each photo against every other photo; the nearest must be the same person. */
function rank1(model: string): number {
  const usable = samples.filter((s) => has(model, s));
  let hits = 0;
  let probes = 0;
  for (const probe of usable) {
    if (!usable.some((o) => o !== probe && o.identity === probe.identity)) continue;
    let best = -Infinity;
    let bestIdentity = '';
    for (const other of usable) {
      if (other === probe) continue;
      const s = similarity(model, probe, other);
      if (s > best) {
        best = s;
        bestIdentity = other.identity;
      }
    }
    probes++;
    if (bestIdentity === probe.identity) hits++;
  }
  return probes ? hits / probes : NaN;
}

/**
 * Open-set identification: half the people enrolled (first photo each), the rest strangers.
 * Known found: an enrolled person's other photo comes back first and above the threshold.
 * Strangers accepted: a stranger's photo passes the threshold at all.
 */
function openSet(model: string, impostors: ImpostorModel) {
  const usable = samples.filter((s) => has(model, s));
  const identities = [...new Set(usable.map((s) => s.identity))].sort();
  const enrolled = new Set(identities.filter((_, i) => i % 2 === 0));
  const gallery = new Map<string, Sample>();
  for (const s of usable) if (enrolled.has(s.identity) && !gallery.has(s.identity)) gallery.set(s.identity, s);
  const threshold = identificationThreshold(gallery.size, 0.01, thresholdForFmr(1e-3));
  let known = 0;
  let found = 0;
  let strangers = 0;
  let accepted = 0;
  for (const s of usable) {
    if (gallery.get(s.identity) === s) continue;
    let best = -Infinity;
    let who = '';
    for (const [id, e] of gallery) {
      const c = similarity(model, s, e);
      if (c > best) {
        best = c;
        who = id;
      }
    }
    const pass = confidenceOf(best, impostors) >= threshold;
    if (enrolled.has(s.identity)) {
      known++;
      if (pass && who === s.identity) found++;
    } else {
      strangers++;
      if (pass) accepted++;
    }
  }
  return {
    gallery: gallery.size,
    threshold,
    known_found: known ? found / known : NaN,
    strangers_accepted: strangers ? accepted / strangers : NaN,
  };
}

/**
 * Strangers accepted and enrolled people found for galleries larger than the dataset, at the
 * threshold the station would use for that size (1 % of strangers under its calibration),
 * extrapolated from this dataset's own scores (bench/lib/open-set-scale.ts).
 */
function openSetScales(pairs: readonly ScoredPair[], calibration: ImpostorModel, tail: ImpostorModel) {
  const genuine = pairs.filter((p) => p.genuine).map((p) => p.score);
  const impostor = pairs.filter((p) => !p.genuine).map((p) => p.score);
  return [100, 1_000, 100_000].map((n) => {
    const confidence = identificationThreshold(n, 0.01, thresholdForFmr(1e-3));
    return { confidence, ...openSetAtScale(genuine, impostor, tail, n, scoreForConfidence(confidence, calibration)) };
  });
}

/** Measured false and true accepts at the calibrated confidence thresholds the station uses. */
function operatingPoints(pairs: readonly ScoredPair[], impostors: ImpostorModel) {
  return [1e-2, 1e-3, 1e-4, 1e-5].map((fmr) => {
    const threshold = thresholdForFmr(fmr);
    const pass = (p: ScoredPair) => confidenceOf(p.score, impostors) >= threshold;
    const genuine = pairs.filter((p) => p.genuine);
    const impostor = pairs.filter((p) => !p.genuine);
    return {
      confidence: threshold,
      fmr_nominal: fmr,
      far_measured: impostor.filter(pass).length / impostor.length,
      tar: genuine.filter(pass).length / genuine.length,
    };
  });
}

/** The calibration the station ships for a model (verification's, identification's), or this dataset's fit. */
function calibrationOf(model: string, fitted: ImpostorModel): ImpostorModel {
  if (args['write-calibration']) return fitted;
  if (model === FACE_MODEL_ID) return IMPOSTOR_MODEL;
  if (model === IDENTIFICATION_MODEL_ID) return IDENTIFICATION_IMPOSTOR_MODEL;
  return model === STATION_IDENTIFICATION ? IDENTIFICATION_CENTRED_IMPOSTOR_MODEL : fitted;
}

const candidates = [
  ...BASE_MODELS,
  ...Object.keys(CENTRED).filter((m) => BASE_MODELS.includes(CENTRED[m]!)),
  ...Object.keys(FUSIONS).filter((f) => parts(f).every((m) => BASE_MODELS.includes(m))),
].map((model) => {
  const pairs = pairsOf(model);
  const metrics = verificationMetrics(pairs);
  const fitted: ImpostorModel = { mean: metrics.tailMean, std: metrics.tailStd, source: datasetName };
  const frontal = verificationMetrics(pairsOf(model, (s) => s.iod >= 40 && Math.abs(s.yaw) <= 20));
  return {
    model,
    faces_found: samples.filter((s) => has(model, s)).length,
    genuine: metrics.genuine,
    impostor: metrics.impostor,
    eer: metrics.eer,
    'tar_at_far_1e-2': metrics.tar_at_far_1e2.tar,
    'tar_at_far_1e-3': metrics.tar_at_far_1e3.tar,
    'tar_at_far_1e-3_frontal': frontal.tar_at_far_1e3.tar,
    genuine_mean: metrics.genuineMean,
    impostor_mean: metrics.impostorMean,
    rank1: rank1(model),
    ...openSet(model, calibrationOf(model, fitted)),
    open_set_scale: openSetScales(pairs, calibrationOf(model, fitted), fitted),
    impostor_fit: fitted,
    empirical_thresholds: { 'far_1e-2': metrics.tar_at_far_1e2.threshold, 'far_1e-3': metrics.tar_at_far_1e3.threshold },
    operating_points: operatingPoints(pairs, calibrationOf(model, fitted)),
  };
});

// The documented remedy on what the station identifies with: the threshold recalibrated on one half
// of the people, measured on the other, with one photo and with up to three photos enrolled per person.
// Each half is centred on its own mean photo, as a station centres on its own gallery.
/** The photos with the model's embedding; as the station enrolls (its sample gates) and identifies (its probe gates) when asked. */
const photosOf = (model: string, gates: { enrolling?: boolean; identifying?: boolean } = {}) =>
  samples
    .filter((s) => s.embeddings[model])
    .map((s) => ({
      identity: s.identity,
      embedding: s.embeddings[model]!,
      ...(gates.enrolling ? { enrollable: s.enrollable } : {}),
      ...(gates.identifying ? { probes: s.probes } : {}),
    }));
const ownPeopleOn = (model: string) =>
  [1, 3].flatMap((photos) =>
    openSetOwnPeople(photosOf(model), cosine, photos, [100, 1_000, 100_000], 'best-sample', CENTRING_SHARE),
  );
const ownPeople = ownPeopleOn(IDENTIFICATION_MODEL_ID);
// The same identifying on the whole stored vector, which the station does not (fused-descriptor.ts).
const ownPeopleWholeVector = ownPeopleOn(FACE_MODEL_ID);
// Three photos as one template per person (their mean direction) instead of the best of three samples.
const ownPeopleMeanTemplate = openSetOwnPeople(
  photosOf(IDENTIFICATION_MODEL_ID),
  cosine,
  3,
  [100, 1_000, 100_000],
  'mean-template',
  CENTRING_SHARE,
);

// The same over 200 random halvings of the people: one split can land on either side of the goal.
// Their score cache holds every pair of photos, so a set of over 4,000 photos (whose halves are
// large enough to calibrate steadily) keeps to the fixed halves.
const HALVINGS = 200;
const MAX_PHOTOS_FOR_HALVINGS = 4_000;
const identifyingPhotos = photosOf(IDENTIFICATION_MODEL_ID);
const ownPeopleHalvings =
  identifyingPhotos.length > MAX_PHOTOS_FOR_HALVINGS
    ? []
    : [
        ...[1, 3].flatMap((photos) =>
          openSetOwnPeopleHalvings(identifyingPhotos, cosine, photos, [100, 1_000, 100_000], {
            halvings: HALVINGS,
            centring: CENTRING_SHARE,
          }),
        ),
        // What centring gains: the plain cosine beside it.
        ...openSetOwnPeopleHalvings(identifyingPhotos, cosine, 3, [100, 1_000, 100_000], { halvings: HALVINGS }),
      ];
// The same with only the photos enroll-UI would take as samples enrolled (the others still probe).
const enrollablePhotos = samples.filter((s) => s.embeddings[IDENTIFICATION_MODEL_ID] && s.enrollable).length;
const ownPeopleHalvingsAsEnrolled =
  identifyingPhotos.length > MAX_PHOTOS_FOR_HALVINGS
    ? []
    : [1, 3].flatMap((photos) =>
        openSetOwnPeopleHalvings(photosOf(IDENTIFICATION_MODEL_ID, { enrolling: true }), cosine, photos, [100, 1_000, 100_000], {
          halvings: HALVINGS,
          centring: CENTRING_SHARE,
        }),
      );
// And as the station also identifies: a probe under identification's gates is refused (LOW_QUALITY)
// instead of searched, so it is neither found nor a stranger; the share refused is printed beside.
const probingPhotos = samples.filter((s) => s.embeddings[IDENTIFICATION_MODEL_ID] && s.probes).length;
const refusedProbes = identifyingPhotos.length ? 1 - probingPhotos / identifyingPhotos.length : 0;
const ownPeopleHalvingsAsIdentified =
  identifyingPhotos.length > MAX_PHOTOS_FOR_HALVINGS
    ? []
    : [1, 3].flatMap((photos) =>
        openSetOwnPeopleHalvings(
          photosOf(IDENTIFICATION_MODEL_ID, { enrolling: true, identifying: true }),
          cosine,
          photos,
          [100, 1_000, 100_000],
          { halvings: HALVINGS, centring: CENTRING_SHARE },
        ),
      );
const spreadCell = (s: Spread) => `${(s.median * 100).toFixed(1)} (${(s.p10 * 100).toFixed(1)}-${(s.p90 * 100).toFixed(1)})`;

/** The cells both open-set tables print, rounded for reading. */
function openSetCells(r: OpenSetAtScale) {
  return {
    gallery: r.gallery,
    strangers_accepted: Math.round(r.strangers_accepted * 10000) / 10000,
    known_found: Math.round(r.known_found * 10000) / 10000,
    impostor_rate: r.impostor_rate_from,
  };
}

// The photos behind the shipped descriptor's genuine pairs that fail at its EER threshold.
const eerPoint = verificationMetrics(pairsOf(FACE_MODEL_ID));
const hardest = hardestPhotos(
  samples.filter((s) => has(FACE_MODEL_ID, s)),
  (a, b) => similarity(FACE_MODEL_ID, a, b),
  eerPoint.eerThreshold,
  12,
).map((h) => {
  const s = samples.find((x) => x.file === h.file)!;
  return {
    ...h,
    file: path.relative(path.dirname(path.dirname(h.file)), h.file),
    best_genuine: Math.round(h.best_genuine * 1000) / 1000,
    faces: s.faces,
    iod: Math.round(s.iod),
    yaw: Math.round(s.yaw),
  };
});

// `chosen` is what the station ships: the fused descriptor for 1:1, its MobileFaceNet part for 1:N
// (the open-set figures); the lowest EER may be a fusion it does not run (reported beside it).
const chosen = candidates.find((c) => c.model === FACE_MODEL_ID)!;
const identifying = candidates.find((c) => c.model === STATION_IDENTIFICATION)!;
const lowestEer = candidates.reduce((a, b) => (b.eer < a.eer ? b : a));
console.log(
  `\nDataset ${datasetName}: ${new Set(images.map((i) => i.identity)).size} persons, ${images.length} images (${equalised} equalised), ${seconds.toFixed(1)} s\n`,
);
printTable(
  candidates.map(({ impostor_fit: _fit, empirical_thresholds: _t, operating_points: _o, open_set_scale: _s, ...row }) => row),
);
console.log('\nIdentificación abierta por tamaño de galería (extrapolada de los puntajes de este conjunto):');
printTable(
  candidates.flatMap((c) =>
    c.open_set_scale.map((r) => ({ model: c.model, confidence: Math.round(r.confidence * 10) / 10, ...openSetCells(r) })),
  ),
);
console.log(
  `\nIdentificación abierta de ${IDENTIFICATION_MODEL_ID} (con lo que identifica la estación, centrado como ella en la foto media de cada mitad) recalibrado con la gente propia (umbral de una mitad de las personas, medido en la otra; found_at_nominal: las encontradas con el umbral que deja pasar exactamente el 1 % nominal de los extraños de la mitad medida, sin el error de la calibración; 1 o hasta 3 fotos enroladas por persona; cada persona puntúa como la mejor de sus muestras, best-sample, o como una plantilla, la media de sus fotos, mean-template):`,
);
printTable(
  [
    ...ownPeople.map((r) => ({ identifies_on: IDENTIFICATION_MODEL_ID, ...r })),
    ...ownPeopleWholeVector.map((r) => ({ identifies_on: FACE_MODEL_ID, ...r })),
    ...ownPeopleMeanTemplate.map((r) => ({ identifies_on: IDENTIFICATION_MODEL_ID, ...r })),
  ].map((r) => ({
    identifies_on: r.identifies_on,
    scoring: r.scoring,
    enrolled_photos: r.enrolled_photos,
    centring: r.centring,
    fold: r.fold,
    threshold: Math.round(r.threshold * 1000) / 1000,
    ...openSetCells(r),
    found_at_nominal: Math.round(r.known_found_at_nominal * 10000) / 10000,
  })),
);
if (ownPeopleHalvings.length) {
  console.log(
    `\nLo mismo en ${HALVINGS} divisiones al azar de las personas en dos mitades (% mediano, entre paréntesis los percentiles 10 y 90; centring: la parte de la similitud de cada sonda con la foto media de su mitad que se resta de sus puntajes, ${CENTRING_SHARE} en la estación, 0 el coseno solo):`,
  );
  const halvingsRow = (r: (typeof ownPeopleHalvings)[number]) => ({
    identifies_on: IDENTIFICATION_MODEL_ID,
    enrolled_photos: r.enrolled_photos,
    centring: r.centring,
    gallery: r.gallery,
    strangers_accepted: spreadCell(r.strangers_accepted),
    known_found: spreadCell(r.known_found),
    found_at_nominal: spreadCell(r.known_found_at_nominal),
  });
  printTable(ownPeopleHalvings.map(halvingsRow));
  console.log(
    `\nLo mismo enrolando solo las fotos que enroll-UI toma como muestra (calidad >= ${enrollMinQuality}, distancia entre ojos >= ${enrollMinIod} px: ${enrollablePhotos} de ${identifyingPhotos.length}); las otras siguen como sondas:`,
  );
  printTable(ownPeopleHalvingsAsEnrolled.map(halvingsRow));
  console.log(
    `\nY además identificando solo con las sondas que identificar-UI acepta (calidad >= ${identifyMinQuality}, distancia entre ojos >= ${identifyMinIod} px: ${probingPhotos} de ${identifyingPhotos.length}; a las demás responde LOW_QUALITY, que pide otra captura):`,
  );
  printTable(ownPeopleHalvingsAsIdentified.map(halvingsRow));
} else {
  console.log(
    `\nMás de ${MAX_PHOTOS_FOR_HALVINGS} fotos: sin divisiones al azar (las dos mitades fijas calibran de forma estable).`,
  );
}
// What the detector found: how sure it is of lone faces, and the boxes beside the face described.
const detections = detectionCensus(
  images.map((img, i) => ({
    file: path.relative(path.dirname(path.dirname(img.file)), img.file),
    faces: analyses[i]?.faces ?? [],
  })),
);
console.log(
  `\nDetecciones: ${detections.one_detection} fotos con un solo rostro, ${detections.one_detection_scored_1} con confianza 1 (la menor ${detections.one_detection_lowest}); ` +
    `los demás recuadros junto al rostro descrito, en las fotos con uno seguro (>= ${detections.sure_score}), dropped = recuadro dudoso alrededor de un rostro seguro:`,
);
printTable(detections.others.map((d) => ({ ...d })));
console.log(
  `\nFotos detrás de los pares genuinos de ${FACE_MODEL_ID} que fallan en su umbral de EER (${eerPoint.eerThreshold.toFixed(3)}), las de más fallos primero:`,
);
printTable(hardest);
for (const c of [chosen, identifying]) {
  console.log(`\nPuntos de operación de ${c.model} con su calibración (confianza = 12 x -log10 FMR):`);
  printTable(c.operating_points);
}
console.log(
  `\nElegido (el que usa la estación): ${chosen.model}; menor EER: ${lowestEer.model} (${(lowestEer.eer * 100).toFixed(2)} %). ` +
    `Modelo de impostores ajustado de ${chosen.model}: media ${chosen.impostor_fit.mean.toFixed(4)}, desvío ${chosen.impostor_fit.std.toFixed(4)}.`,
);
console.log('Fusión: suma de los cosenos de cada parte normalizados (z) por sus impostores en este mismo conjunto.');

// Faces as sent against the same people's full photos: processed, refused as several faces, and
// verified at the station's 1:1 threshold (FMR 1e-3) as the full photo is, on the same pairs.
const verifyAt = thresholdForFmr(1e-3);
// People alternate between a tuning half (where the crops' handling is decided) and a validation
// half that no decision looks at.
const cropPeople = [...new Set(images.map((i) => i.identity))].sort();
const splitOf = (identity: string) => (cropPeople.indexOf(identity) % 2 === 0 ? 'tuning' : 'validation');
const facesAsSentRows = CROP_KINDS.flatMap((kind) =>
  (['tuning', 'validation'] as const).map((split) => {
    const ofKind = crops.filter((c) => c.kind === kind && splitOf(samples[c.image]!.identity) === split);
    let [pairs, fullPass, cropPass, impostors, cropFalse] = [0, 0, 0, 0, 0];
    for (const c of ofKind) {
      const probe = samples[c.image]!;
      for (const [j, other] of samples.entries()) {
        const enrolled = other.embeddings[FACE_MODEL_ID];
        if (j === c.image || !enrolled) continue;
        if (other.identity === probe.identity) {
          const full = probe.embeddings[FACE_MODEL_ID];
          if (!full) continue;
          pairs++;
          if (confidenceOf(cosine(enrolled, full), IMPOSTOR_MODEL) >= verifyAt) fullPass++;
          if (c.embedding && confidenceOf(cosine(enrolled, c.embedding), IMPOSTOR_MODEL) >= verifyAt) cropPass++;
        } else if (c.embedding && impostors < 200_000) {
          impostors++;
          if (confidenceOf(cosine(enrolled, c.embedding), IMPOSTOR_MODEL) >= verifyAt) cropFalse++;
        }
      }
    }
    const n = ofKind.length;
    return {
      kind,
      split,
      inputs: n,
      processed: n ? ofKind.filter((c) => c.status === 'OK').length / n : NaN,
      multiple_faces: ofKind.filter((c) => c.status === 'TEMPLATE_MULTIPLE_FACES').length,
      not_detected: ofKind.filter((c) => c.status === 'FACE_NOT_DETECTED').length,
      padded_pass: n ? ofKind.filter((c) => c.padded).length / n : NaN,
      genuine_pairs: pairs,
      tar_full_photo: pairs ? fullPass / pairs : NaN,
      tar_as_sent: pairs ? cropPass / pairs : NaN,
      far_as_sent: impostors ? cropFalse / impostors : NaN,
    };
  }),
);
if (crops.length) {
  console.log(
    `\nRostros como los envían los integradores, contra las fotos completas de las mismas personas (umbral 1:1 ${verifyAt}):`,
  );
  printTable(facesAsSentRows);
}

const report = {
  dataset: datasetName,
  persons: new Set(images.map((i) => i.identity)).size,
  images: images.length,
  equalised_photos: equalised,
  seconds,
  chosen: {
    model: chosen.model,
    eer: chosen.eer,
    'tar_at_far_1e-2': chosen['tar_at_far_1e-2'],
    'tar_at_far_1e-3': chosen['tar_at_far_1e-3'],
    rank1: identifying.rank1,
    strangers_accepted: identifying.strangers_accepted,
    known_found: identifying.known_found,
    identification_model: IDENTIFICATION_MODEL_ID,
    open_set_1000: identifying.open_set_scale.find((r) => r.gallery === 1_000),
    open_set_1000_own_people: ownPeople.filter((r) => r.gallery === 1_000),
    // What the station does: the uncentred rows are the comparison.
    open_set_1000_own_people_halvings: ownPeopleHalvings.filter((r) => r.gallery === 1_000 && r.centring === CENTRING_SHARE),
    // And as the station enrolls and identifies (its sample and probe gates): the goal's figure.
    open_set_1000_as_the_station_identifies: {
      refused_probes: refusedProbes,
      rows: ownPeopleHalvingsAsIdentified.filter((r) => r.gallery === 1_000),
    },
  },
  lowest_eer: lowestEer.model,
  candidates,
  open_set_own_people: ownPeople,
  open_set_own_people_halvings: ownPeopleHalvings,
  // Only the photos enroll-UI would take enrolled (its gates at the station's defaults).
  open_set_own_people_halvings_as_enrolled: {
    min_quality: enrollMinQuality,
    min_iod: enrollMinIod,
    enrollable_photos: enrollablePhotos,
    rows: ownPeopleHalvingsAsEnrolled,
  },
  // And only the photos identificar-UI would search with as probes (LOW_QUALITY for the others).
  open_set_own_people_halvings_as_identified: {
    min_quality: identifyMinQuality,
    min_iod: identifyMinIod,
    probing_photos: probingPhotos,
    refused_probes: refusedProbes,
    rows: ownPeopleHalvingsAsIdentified,
  },
  open_set_own_people_whole_vector: ownPeopleWholeVector,
  open_set_own_people_mean_template: ownPeopleMeanTemplate,
  fusion_z_stats: Object.fromEntries(zStats),
  // What a customer measuring on their own people looks at first: the photos most of the failing
  // genuine pairs come from (a mislabelled photo, a second face, a face turned or tiny).
  hardest_photos: { model: FACE_MODEL_ID, eer_threshold: eerPoint.eerThreshold, photos: hardest },
  detections,
  faces_as_sent: facesAsSentRows,
};
const out = path.join(
  packageRoot(),
  'bench',
  'results',
  args.dataset || args.celeba ? `eval-face-${datasetName}.json` : 'eval-face.json',
);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nEscrito ${path.relative(packageRoot(), out)}`);

if (args['write-calibration']) {
  if (args.celeba) throw new Error('CelebA es solo para medir: no se calibra con él.');
  const file = path.join(packageRoot(), 'server', 'engines', 'face', 'calibration-data.ts');
  const fit = chosen.impostor_fit;
  const idFit = candidates.find((c) => c.model === IDENTIFICATION_MODEL_ID)!.impostor_fit;
  const centredFit = identifying.impostor_fit;
  writeFileSync(
    file,
    `import type { ImpostorModel } from '../../matching/calibration.js';

/**
 * Impostor cosine-score distribution of the shipped descriptor (${FACE_MODEL_ID}),
 * written by \`npm run eval:face -- --write-calibration\` on ${datasetName} (${report.images} photos,
 * ${candidates[0]!.impostor} impostor pairs). CelebA is never used for shipped values. A default:
 * recalibrate on the customer's own people with \`npm run eval:face -- --dataset DIR --write-calibration\`.
 */
export const IMPOSTOR_MODEL: ImpostorModel = {
  mean: ${fit.mean.toFixed(5)},
  std: ${fit.std.toFixed(5)},
  source: '${datasetName}',
};

/** The same for identification's cosine (${IDENTIFICATION_MODEL_ID}, the fused vector's MobileFaceNet part). */
export const IDENTIFICATION_IMPOSTOR_MODEL: ImpostorModel = {
  mean: ${idFit.mean.toFixed(5)},
  std: ${idFit.std.toFixed(5)},
  source: '${datasetName}',
};

/**
 * The same cosine centred in full on the gallery's mean sample (matching/gallery-centre.ts), here
 * the set's own: a gallery centred in part is calibrated between the two.
 */
export const IDENTIFICATION_CENTRED_IMPOSTOR_MODEL: ImpostorModel = {
  mean: ${centredFit.mean.toFixed(5)},
  std: ${centredFit.std.toFixed(5)},
  source: '${datasetName}',
};
`,
  );
  console.log(`Calibración escrita en ${path.relative(packageRoot(), file)}`);
}
