import {
  addInto,
  centredImpostors,
  centringShift,
  centringWeight,
  galleryCentre,
  identificationThreshold,
  type ImpostorModel,
  meanDirection,
  normalize,
  thresholdForFmr,
} from '../../server/matching/index.js';
import { seededRandom } from '../../test/random.js';
import { allPairs, percentile, verificationMetrics, type ScoredPair } from './metrics.js';
import { openSetAtScale, scoreForConfidence, thresholdForStrangers, type OpenSetAtScale } from './open-set-scale.js';

export interface Photo {
  identity: string;
  embedding: Float32Array;
  /**
   * Whether the station's enrollment would take this photo as a sample (its quality and eye
   * distance gates, face-operations.ts); false keeps it a probe only. Unset: enrollable.
   */
  enrollable?: boolean;
  /**
   * Whether identification would search with this photo (its probe gates, face-operations.ts);
   * false: the station answers LOW_QUALITY and the photo never probes. Unset: it probes.
   */
  probes?: boolean;
}

const enrollable = (p: Pick<Photo, 'enrollable'>) => p.enrollable !== false;
const probes = (p: Pick<Photo, 'probes'>) => p.probes !== false;

/**
 * How a person with several enrolled photos scores against a probe: the best of their samples
 * (the station's rule), or one template per person, the mean direction of their samples.
 */
export type PersonScoring = 'best-sample' | 'mean-template';

export interface OwnPeopleOpenSet extends OpenSetAtScale {
  /** Photos enrolled per person (at most; persons with fewer photos enroll what they have but one). */
  enrolled_photos: number;
  scoring: PersonScoring;
  /** Which half of the people the threshold was calibrated on (the other half is measured). */
  fold: number;
  /** The share of each probe's similarity to its half's mean photo taken off its scores (0: none). */
  centring: number;
  /**
   * Enrolled people found at the threshold that lets exactly the nominal 1 % of the measured half's
   * strangers through: the calibration's error removed, what the descriptor itself can do.
   */
  known_found_at_nominal: number;
}

/** Strangers the station's identification threshold lets through, nominally, at any gallery size. */
const FPIR = 0.01;

/**
 * Open-set identification as a customer who follows docs/face-engine.md gets it: the threshold
 * recalibrated on their own people (`--write-calibration`), then applied to other people. The
 * people are split in two halves by identity; the impostor tail of one half sets the threshold,
 * the other half is measured, and the halves swap. Each measured person enrolls up to `photos` of
 * their photos and is probed with each remaining one; a person scores as the best of their
 * samples (the station's rule), and the threshold is the station's for N people x that many
 * samples (1 % of strangers). With `mean-template` a person is instead one template, the mean
 * direction of their enrolled samples: the threshold is then for N comparisons, calibrated on the
 * calibration half's own template-against-photo impostor scores (a template's scores are not
 * distributed as a photo's). Extrapolated to N as in open-set-scale.ts, from the measured half's
 * per-person scores. With `centring` (HalvingsOptions) each half is centred on its own mean photo.
 */
export function openSetOwnPeople(
  photos: readonly Photo[],
  score: (a: Float32Array, b: Float32Array) => number,
  enrolledPhotos: number,
  galleries: readonly number[],
  scoring: PersonScoring = 'best-sample',
  centring = 0,
): OwnPeopleOpenSet[] {
  const identities = [...new Set(photos.map((p) => p.identity))].sort();
  return [0, 1].flatMap((fold) => {
    const calibrate = new Set(identities.filter((_, i) => i % 2 === fold));
    return measureCentred({ photos, calibrate, score, enrolledPhotos, scoring }, galleries, centring).map((r) => ({
      ...r,
      fold,
      centring,
    }));
  });
}

/** The median and the 10th and 90th percentiles of a figure over many halvings. */
export interface Spread {
  median: number;
  p10: number;
  p90: number;
}

export interface OwnPeopleHalvings {
  enrolled_photos: number;
  scoring: PersonScoring;
  gallery: number;
  /** How many random halvings of the people were measured. */
  halvings: number;
  /** The share of each probe's similarity to its half's mean photo taken off its scores (0: none). */
  centring: number;
  strangers_accepted: Spread;
  known_found: Spread;
  known_found_at_nominal: Spread;
}

/**
 * The same as `openSetOwnPeople` over many random halvings of the people instead of the one fixed
 * split: with 50 people a half, which people calibrate moves the stranger share by more than any
 * lever measured, and one split can land on either side of the goal.
 */
export function openSetOwnPeopleHalvings(
  photos: readonly Photo[],
  score: (a: Float32Array, b: Float32Array) => number,
  enrolledPhotos: number,
  galleries: readonly number[],
  { halvings, seed = 1, scoring = 'best-sample', centring = 0 }: HalvingsOptions,
): OwnPeopleHalvings[] {
  const identities = [...new Set(photos.map((p) => p.identity))].sort();
  const random = seededRandom(seed);
  const cached = scoreCache(photos, score);
  const runs = Array.from({ length: halvings }, () => {
    const shuffled = identities
      .map((id) => ({ id, key: random() }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.id);
    const calibrate = new Set(shuffled.slice(0, identities.length >> 1));
    return measureCentred({ photos, calibrate, score: cached, enrolledPhotos, scoring }, galleries, centring);
  });
  const spread = (values: number[]): Spread => ({
    median: percentile(values, 50),
    p10: percentile(values, 10),
    p90: percentile(values, 90),
  });
  return galleries.map((gallery, g) => ({
    enrolled_photos: enrolledPhotos,
    scoring,
    gallery,
    halvings,
    centring,
    strangers_accepted: spread(runs.map((r) => r[g]!.strangers_accepted)),
    known_found: spread(runs.map((r) => r[g]!.known_found)),
    known_found_at_nominal: spread(runs.map((r) => r[g]!.known_found_at_nominal)),
  }));
}

export interface HalvingsOptions {
  halvings: number;
  seed?: number;
  scoring?: PersonScoring;
  /**
   * Each probe's scores lowered by this share of its similarity to the mean of its own half's
   * photos (each half a population with its own gallery, its mean shrunk as the station's is):
   * the station's CENTRING_SHARE, or 0 for the plain cosine (matching/gallery-centre.ts).
   */
  centring?: number;
}

/**
 * measureHalf on centred scores, as the station centres and calibrates them: the calibration half
 * fits the plain cosine's impostors and those centred in full on its own mean (what
 * `eval:face --write-calibration` writes); the measured half, one gallery size at a time, is
 * centred on its own mean at the weight of a gallery of that many samples (N x the photos
 * enrolled), and its threshold comes from the calibration at that weight.
 */
function measureCentred(half: Half, galleries: readonly number[], centring: number): Measured[] {
  const plain = calibrationOf(half);
  const measured = half.photos.filter((p) => !half.calibrate.has(p.identity));
  const raw = personScores(measured, half.enrolledPhotos, personScoreOf(half.score, half.scoring));
  if (centring === 0) return measureHalf(raw, half, galleries, () => plain);
  const calibrating = half.photos.filter((p) => half.calibrate.has(p.identity));
  const full = calibrationOf({ ...half, score: centred(calibrating, half.score, centring) });
  // A person's score less the probe's shift is the centred person score (the shift is the probe's
  // alone), and the shift scales with the weight: the raw scores are taken once.
  const shift = centringShifts(measured, centring);
  return galleries.flatMap((n) => {
    const weight = centringWeight(n * half.enrolledPhotos);
    const lowered = (scores: number[], probes: Photo[]) => scores.map((s, i) => s - weight * shift.get(probes[i]!.embedding)!);
    const scores = { genuine: lowered(raw.genuine, raw.genuineProbes), impostor: lowered(raw.impostor, raw.impostorProbes) };
    return measureHalf(scores, half, [n], () => centredImpostors(plain, full, weight));
  });
}

/**
 * Each photo's `centring` x similarity to the mean of the enrollable ones (the gallery's), by its
 * embedding: a station's whole shift, on a gallery of that population large enough to be centred
 * in full (matching/gallery-centre.ts).
 */
export function centringShifts(
  photos: readonly Pick<Photo, 'embedding' | 'enrollable'>[],
  centring: number,
): Map<Float32Array, number> {
  const units = photos.map((p) => normalize(p.embedding));
  const sum = new Float64Array(units[0]?.length ?? 0);
  let samples = 0;
  for (const [k, v] of units.entries()) {
    if (!enrollable(photos[k]!)) continue;
    addInto(sum, v);
    samples++;
  }
  const mean = galleryCentre(sum, samples, 0);
  return new Map(photos.map((p, k) => [p.embedding, centringShift(units[k]!, mean, centring)]));
}

/** `score` with the probe's (first argument's) shift on `photos` taken off; other probes' scores are left as they are. */
function centred(
  photos: readonly Photo[],
  score: (a: Float32Array, b: Float32Array) => number,
  centring: number,
): (a: Float32Array, b: Float32Array) => number {
  const shift = centringShifts(photos, centring);
  return (a, b) => score(a, b) - (shift.get(a) ?? 0);
}

/**
 * `score` remembered for every pair of the photos' own embeddings (each halving scores most pairs
 * again); other vectors, such as mean templates, are scored afresh.
 */
function scoreCache(
  photos: readonly Photo[],
  score: (a: Float32Array, b: Float32Array) => number,
): (a: Float32Array, b: Float32Array) => number {
  const index = new Map(photos.map((p, i) => [p.embedding, i]));
  const n = photos.length;
  const cache = new Float64Array(n * n).fill(NaN);
  return (a, b) => {
    const i = index.get(a);
    const j = index.get(b);
    if (i === undefined || j === undefined) return score(a, b);
    if (Number.isNaN(cache[i * n + j]!)) cache[i * n + j] = cache[j * n + i] = score(a, b);
    return cache[i * n + j]!;
  };
}

/** How a person scores against a probe (PersonScoring). */
function personScoreOf(score: (a: Float32Array, b: Float32Array) => number, scoring: PersonScoring) {
  return scoring === 'best-sample'
    ? (probe: Photo, enrolled: readonly Photo[]) => Math.max(...enrolled.map((e) => score(probe.embedding, e.embedding)))
    : (probe: Photo, enrolled: readonly Photo[]) => score(probe.embedding, meanDirection(...enrolled.map((e) => e.embedding)));
}

/**
 * One half's exercise: the photos, the people whose impostor tail sets the threshold (everyone
 * else is measured), how two photos score, and how many photos each person enrolls and is scored by.
 */
interface Half {
  photos: readonly Photo[];
  calibrate: ReadonlySet<string>;
  score: (a: Float32Array, b: Float32Array) => number;
  enrolledPhotos: number;
  scoring: PersonScoring;
}

type Measured = Omit<OwnPeopleOpenSet, 'fold' | 'centring'>;

/** The impostor tail the people of `calibrate` give (a photo's against a photo, or against a mean template). */
function calibrationOf({ photos, calibrate, score, enrolledPhotos, scoring }: Half): ImpostorModel {
  const calibrating = photos.filter((p) => calibrate.has(p.identity));
  return fitTail(
    scoring === 'best-sample'
      ? calibrationPairs(calibrating, score)
      : personScores(calibrating, enrolledPhotos, personScoreOf(score, scoring)).impostor.map((s) => ({
          score: s,
          genuine: false,
        })),
  );
}

/**
 * Every pair of the photos, but those of two photos enrollment would refuse: each comparison a
 * station makes has an enrolled sample on one side. The probe gates do not enter: a customer's
 * calibration (`eval:face --write-calibration`) fits every pair of their people's photos, and one
 * fitted to the gated pairs alone let more strangers through than promised (docs/face-engine.md).
 */
function calibrationPairs(photos: readonly Photo[], score: (a: Float32Array, b: Float32Array) => number): ScoredPair[] {
  return allPairs(
    photos,
    (a, b) => score(a.embedding, b.embedding),
    (a, b) => enrollable(a) || enrollable(b),
  );
}

/** The measured half's person scores, at the threshold `calibration(n)` sets for a gallery of n people. */
function measureHalf(
  { genuine, impostor }: { genuine: readonly number[]; impostor: readonly number[] },
  { enrolledPhotos, scoring }: Half,
  galleries: readonly number[],
  calibration: (n: number) => ImpostorModel,
): Measured[] {
  const tail = fitTail([
    ...genuine.map((s) => ({ score: s, genuine: true })),
    ...impostor.map((s) => ({ score: s, genuine: false })),
  ]);
  const comparisonsPerPerson = scoring === 'best-sample' ? enrolledPhotos : 1;
  return galleries.map((n) => {
    const confidence = identificationThreshold(n * comparisonsPerPerson, FPIR, thresholdForFmr(1e-3));
    const exact = thresholdForStrangers(impostor, tail, n, FPIR);
    return {
      enrolled_photos: enrolledPhotos,
      scoring,
      ...openSetAtScale(genuine, impostor, tail, n, scoreForConfidence(confidence, calibration(n))),
      known_found_at_nominal: openSetAtScale(genuine, impostor, tail, n, exact).known_found,
    };
  });
}

/**
 * Each person enrolls up to `enrolledPhotos` photos, their first enrollable ones (a person with
 * none is never enrolled): genuine, each photo of a person against their other enrollable ones;
 * impostor, each photo against every other enrolled person's; a photo the station would refuse as
 * a probe scores neither. Each score's probe beside it.
 */
function personScores(
  photos: readonly Photo[],
  enrolledPhotos: number,
  personScore: (probe: Photo, enrolled: readonly Photo[]) => number,
): { genuine: number[]; impostor: number[]; genuineProbes: Photo[]; impostorProbes: Photo[] } {
  const byPerson = new Map<string, Photo[]>();
  for (const p of photos) {
    const own = byPerson.get(p.identity);
    if (own) own.push(p);
    else byPerson.set(p.identity, [p]);
  }
  const genuine: number[] = [];
  const genuineProbes: Photo[] = [];
  for (const own of byPerson.values()) {
    for (const probe of own) {
      if (!probes(probe)) continue;
      const enrolled = own.filter((p) => p !== probe && enrollable(p)).slice(0, enrolledPhotos);
      if (enrolled.length === 0) continue;
      genuine.push(personScore(probe, enrolled));
      genuineProbes.push(probe);
    }
  }
  const impostor: number[] = [];
  const impostorProbes: Photo[] = [];
  for (const probe of photos) {
    if (!probes(probe)) continue;
    for (const [id, own] of byPerson) {
      const enrolled = own.filter(enrollable).slice(0, enrolledPhotos);
      if (id === probe.identity || enrolled.length === 0) continue;
      impostor.push(personScore(probe, enrolled));
      impostorProbes.push(probe);
    }
  }
  return { genuine, impostor, genuineProbes, impostorProbes };
}

function fitTail(pairs: readonly ScoredPair[]): ImpostorModel {
  const m = verificationMetrics(pairs);
  return { mean: m.tailMean, std: m.tailStd, source: 'own people' };
}
