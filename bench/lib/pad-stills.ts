import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assortedFaces, celeba, facesPairs, FIXTURES, folderPerPerson } from './datasets.js';
import { mjpegFrames } from './mjpeg.js';
import { movedPhotoSequence } from './moved-photo.js';
import { recapturedStill } from './recaptured-still.js';

export type StillSplit = 'tuning' | 'validation';
export type StillKind =
  | 'live'
  | 'replay'
  | 'print'
  | 'tablet'
  | 'screen (synthetic)'
  | 'print (synthetic)'
  | 'held photo (synthetic)';

export interface StillCase {
  name: string;
  split: StillSplit;
  /** Where the still comes from: real recordings and photos, or made by a generator from live photos. */
  source: 'real' | 'synthetic';
  kind: StillKind;
  image: () => Promise<Uint8Array>;
}

const VIDEO_STRIDE = 6; // one still every 0.4 s of the clips

/**
 * The single stills eval:pad judges, split so no person and no recording is on both sides:
 * - tuning: the webcam clip of one man (live) and its replay on a phone, every 0.4 s; the LFW
 *   sets' photos (32 people) as live faces, each also shown on a screen, printed or held up
 *   (generated, one kind per photo in turn);
 * - validation: the anti-spoofing samples (two live women, a printed photo, a tablet replay) and
 *   CelebA's dev photos (100 other people, measured only, never fitted on), their attacks made
 *   the same way.
 */
export function stillCases(): StillCase[] {
  const cases: StillCase[] = [];
  for (const [file, kind] of [
    ['real2_320x240_15fps_full.mjpeg', 'live'],
    ['real2_640x480_15fps_6s.mjpeg', 'live'],
    ['fake2_replay_320x240_15fps_full.mjpeg', 'replay'],
  ] as const) {
    const frames = mjpegFrames(path.join(FIXTURES, 'video', file));
    for (let i = 0; i < frames.length; i += VIDEO_STRIDE) {
      const frame = frames[i]!;
      cases.push({ name: `${file}#${i}`, split: 'tuning', source: 'real', kind, image: async () => frame });
    }
  }
  const lfwSets = [...folderPerPerson(path.join(FIXTURES, 'faces-lfw')), ...facesPairs(), ...assortedFaces()];
  cases.push(
    ...withAttacks(
      lfwSets.map((i) => i.file),
      'tuning',
    ),
  );
  for (const [file, kind] of [
    ['image_T1.jpg', 'live'],
    ['image_T2.jpg', 'live'],
    ['image_F1.jpg', 'print'],
    ['image_F2.jpg', 'tablet'],
  ] as const) {
    const bytes = readFileSync(path.join(FIXTURES, 'antispoof', file));
    cases.push({ name: file, split: 'validation', source: 'real', kind, image: async () => bytes });
  }
  cases.push(
    ...withAttacks(
      celeba('faces-celeba-dev').map((i) => i.file),
      'validation',
    ),
  );
  return cases;
}

/** Each live photo as itself, and one attack made from it (screen, print, held up, in turn). */
function withAttacks(files: readonly string[], split: StillSplit): StillCase[] {
  return files.flatMap((file, i): StillCase[] => {
    const name = path.relative(FIXTURES, file);
    const read = async () => readFileSync(file);
    const attack: StillCase =
      i % 3 === 0
        ? {
            name: `${name}~screen`,
            split,
            source: 'synthetic',
            kind: 'screen (synthetic)',
            image: async () => recapturedStill(await read(), 'screen', i),
          }
        : i % 3 === 1
          ? {
              name: `${name}~print`,
              split,
              source: 'synthetic',
              kind: 'print (synthetic)',
              image: async () => recapturedStill(await read(), 'print', i),
            }
          : {
              name: `${name}~held`,
              split,
              source: 'synthetic',
              kind: 'held photo (synthetic)',
              image: async () => (await movedPhotoSequence(await read(), i, 3))[1]!,
            };
    return [{ name, split, source: 'real', kind: 'live', image: read }, attack];
  });
}
