import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { celeba, facesPairs, FIXTURES } from './datasets.js';

// The label files of ../shared end their lines with CRLF: read as LF, every identity but the
// last line's carried a carriage return, and the last photo of a group became a person of its own.
describe('labelled sets', () => {
  it('reads each group of the deepface photos whole', () => {
    const photos = facesPairs();
    const groups = new Set(
      readFileSync(path.join(FIXTURES, 'faces-pairs', 'identity_groups_DERIVED.csv'), 'latin1')
        .split(/[\r\n]+/)
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(',')[1]),
    );
    expect(new Set(photos.map((p) => p.identity)).size).toBe(groups.size);
    for (const p of photos) expect(p.identity).toMatch(/^pairs-G\d+$/);
  });

  it('reads CelebA identities and attributes without line ends', () => {
    for (const set of ['faces-celeba-dev', 'attributes-celeba-dev'] as const) {
      const images = celeba(set);
      expect(images.length).toBeGreaterThan(100);
      for (const img of images) {
        expect(img.identity).toMatch(/^celeba-\d+$/);
        for (const [name, value] of Object.entries(img.attributes)) {
          expect(name).toMatch(/^\w+$/);
          expect([-1, 1]).toContain(value);
        }
      }
    }
  });
});
