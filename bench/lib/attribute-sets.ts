import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../server/version.js';
import { assortedFaces, celeba, facesPairs, FIXTURES, folderPerPerson, type CelebaImage } from './datasets.js';
import { DARK_GLASSES_FILES } from './dark-glasses-labels.js';

/** What an attribute photo is labelled with: true, false, or null where the labeller could not tell. */
export type Label = boolean | null;

/** The labels every set answers, in the own labels' names (bench/labels/README.md). */
export const LABEL_NAMES = [
  'smiling',
  'mouth_open',
  'eyeglasses',
  'sunglasses',
  'hat',
  'fringe',
  'beard',
  'mustache',
  'eyes_closed',
  'male',
  'young',
] as const;
export type LabelName = (typeof LABEL_NAMES)[number];

export const SPLITS = ['own-tuning', 'own-validation', 'celeba-a', 'celeba-b'] as const;
export type Split = (typeof SPLITS)[number];

export interface AttributePhoto {
  file: string;
  identity: string;
  split: Split;
  labels: Partial<Record<LabelName, Label>>;
  /** The own labels' expression column (NEUTRAL, SMILE, ...), null on CelebA. */
  expression: string | null;
}

/** FNV-1a of a string: a split that depends on the identity's name alone, the same on every machine. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
const half = (identity: string): 0 | 1 => (hash(identity) & 1) as 0 | 1;

const cell = (v: string | undefined): Label => (v === '1' ? true : v === '0' ? false : null);

/**
 * The own labels (bench/labels/attributes-own.csv), split by person into the half every shipped
 * threshold and calibration is fitted on and a held-out half. Identities as eval:face names them.
 */
export function ownPhotos(): AttributePhoto[] {
  const identities = new Map<string, string>();
  for (const image of [...folderPerPerson(path.join(FIXTURES, 'faces-lfw')), ...facesPairs(), ...assortedFaces()]) {
    identities.set(path.relative(FIXTURES, image.file), image.identity);
  }
  const [header, ...rows] = readFileSync(path.join(packageRoot(), 'bench', 'labels', 'attributes-own.csv'), 'utf8')
    .trim()
    .split(/\r?\n/);
  const names = header!.split(',');
  const photos = rows.map((row): AttributePhoto => {
    const cells = row.split(',');
    const at = (name: string) => cells[names.indexOf(name)];
    const relative = at('file')!;
    const labels: Partial<Record<LabelName, Label>> = {};
    for (const name of LABEL_NAMES) if (names.includes(name)) labels[name] = cell(at(name));
    return {
      file: path.join(FIXTURES, relative),
      identity: identities.get(relative) ?? relative,
      split: 'own-tuning',
      labels,
      expression: at('expression') || null,
    };
  });
  const tuning = balancedHalf(photos);
  for (const photo of photos) photo.split = tuning.has(photo.identity) ? 'own-tuning' : 'own-validation';
  return photos;
}

/**
 * The people of the tuning half: taken in the order of their names' hash, each to the half that
 * keeps every label's positives (and the photos) most evenly shared. A plain split by hash put
 * 3 of the 19 beards in one half: a person's ten photos share their beard and their glasses.
 */
function balancedHalf(photos: readonly AttributePhoto[]): Set<string> {
  const people = [...new Set(photos.map((p) => p.identity))].sort((a, b) => hash(a) - hash(b) || a.localeCompare(b));
  const counts = (identity: string) => {
    const mine = photos.filter((p) => p.identity === identity);
    return [mine.length, ...LABEL_NAMES.map((name) => mine.filter((p) => p.labels[name] === true).length)];
  };
  const totals = counts('').map((_, i) => people.reduce((s, id) => s + counts(id)[i]!, 0));
  const sums = [totals.map(() => 0), totals.map(() => 0)];
  const tuning = new Set<string>();
  for (const identity of people) {
    const c = counts(identity);
    // The imbalance if this person went to half h: each count's difference, relative to its total.
    const cost = (h: 0 | 1) =>
      totals.reduce((s, total, i) => {
        if (!total) return s;
        const a = sums[0]![i]! + (h === 0 ? c[i]! : 0);
        const b = sums[1]![i]! + (h === 1 ? c[i]! : 0);
        return s + ((a - b) / total) ** 2;
      }, 0);
    const h = cost(0) <= cost(1) ? 0 : 1;
    c.forEach((v, i) => (sums[h]![i]! += v));
    if (h === 0) tuning.add(identity);
  }
  return tuning;
}

const celebaLabels = ({ attributes: a, file }: CelebaImage): Partial<Record<LabelName, Label>> => ({
  smiling: a.Smiling === 1,
  mouth_open: a.Mouth_Slightly_Open === 1,
  eyeglasses: a.Eyeglasses === 1,
  // CelebA has no sunglasses label: hand labels of its Eyeglasses photos (dark-glasses-labels.ts).
  sunglasses: DARK_GLASSES_FILES.has(path.basename(file)),
  hat: a.Wearing_Hat === 1,
  fringe: a.Bangs === 1,
  beard: a.No_Beard === -1 || a.Goatee === 1,
  mustache: a.Mustache === 1,
  eyes_closed: null,
  male: a.Male === 1,
  young: a.Young === 1,
});

/** CelebA's two dev sets, in two halves by identity: measured only, neither looked at by any decision. */
export function celebaPhotos(): AttributePhoto[] {
  const images = new Map<string, CelebaImage>();
  for (const set of ['attributes-celeba-dev', 'faces-celeba-dev'] as const) {
    for (const image of celeba(set)) images.set(path.basename(image.file), image);
  }
  return [...images.values()].map((image) => ({
    file: image.file,
    identity: image.identity,
    split: half(image.identity) === 0 ? 'celeba-a' : 'celeba-b',
    labels: celebaLabels(image),
    expression: null,
  }));
}
