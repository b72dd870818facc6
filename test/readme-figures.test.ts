import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../server/version.js';
// @ts-expect-error: a plain ES module script without declarations
import { withTable } from '../scripts/readme-figures.js';

describe("the README's figures", () => {
  it('are the ones bench/results holds (npm run figures regenerates them)', async () => {
    const readme = readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
    expect(await (withTable as (text: string) => Promise<string>)(readme)).toBe(readme);
  });
});
