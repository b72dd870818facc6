import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../server/version.js';

export interface LabelledImage {
  file: string;
  identity: string;
}

/** ../shared beside the checkout (as on CI), or ENROLLA_SHARED. */
export const SHARED = path.resolve(process.env.ENROLLA_SHARED ?? path.join(packageRoot(), '..', 'shared'));
export const FIXTURES = path.join(SHARED, 'fixtures');

const IMAGE = /\.(jpe?g|png)$/i;

/** One subfolder of photos per person (the `--dataset DIR` layout, and faces-lfw). */
export function folderPerPerson(dir: string): LabelledImage[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(dir, d.name))
        .filter((f) => IMAGE.test(f))
        .sort()
        .map((f) => ({ file: path.join(dir, d.name, f), identity: d.name })),
    );
}

/** deepface's test photos with the identity groups derived from their labelled pairs. */
export function facesPairs(): LabelledImage[] {
  const dir = path.join(FIXTURES, 'faces-pairs');
  return readFileSync(path.join(dir, 'identity_groups_DERIVED.csv'), 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.split(','))
    .filter(([file]) => file && existsSync(path.join(dir, file)))
    .map(([file, group]) => ({ file: path.join(dir, file!), identity: `pairs-${group}` }));
}

/** The assorted photos of faces/: identity from the file name; group photos left out. */
export function assortedFaces(): LabelledImage[] {
  const dir = path.join(FIXTURES, 'faces');
  return readdirSync(dir)
    .filter((f) => IMAGE.test(f) && !/two_people|kit_with_rose|group|solvay/.test(f))
    .sort()
    .map((f) => {
      const stock = /^human-stock-emotions-([a-z])-/.exec(f);
      const fr = /^fr-([a-z]+(?:_[a-z]+)?)/.exec(f.replace(/_test/, ''));
      return { file: path.join(dir, f), identity: stock ? `stock-${stock[1]}` : fr ? `fr-${fr[1]}` : f };
    });
}

export interface CelebaImage extends LabelledImage {
  attributes: Record<string, number>;
}

/** A CelebA folder (images/ + labels.csv). Non-commercial: evaluation only, never shipped or fitted. */
export function celeba(dirName: 'faces-celeba-dev' | 'attributes-celeba-dev'): CelebaImage[] {
  const dir = path.join(FIXTURES, dirName);
  const [header, ...rows] = readFileSync(path.join(dir, 'labels.csv'), 'utf8').trim().split(/\r?\n/);
  const names = header!.split(',');
  return rows.map((row) => {
    const cells = row.split(',');
    const attributes: Record<string, number> = {};
    names.forEach((n, i) => {
      // attributes-celeba-dev has no width/height columns: skip the non-attribute ones by name.
      if (i >= 2 && n !== 'width' && n !== 'height') attributes[n] = Number(cells[i]);
    });
    return { file: path.join(dir, 'images', cells[0]!), identity: `celeba-${cells[1]}`, attributes };
  });
}
