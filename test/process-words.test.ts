import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../server/version.js';

/**
 * Docs and comments describe the product as it is; how it got there is git's history (and a
 * CHANGELOG's, for releases). Numbered stops, issues and trials are the process's words.
 */
const PROCESS_WORDS = /\b(stops? \d+|stop \d+'s|this st[o]p|issues? #?\d+|trials?)\b/i;
const EXEMPT = new Set(['CHANGELOG.md', 'package-lock.json', 'test/process-words.test.ts']);

describe('tracked files', () => {
  it('speak of the product, not of the process that built it', () => {
    const root = packageRoot();
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter(
        (f) =>
          f &&
          !EXEMPT.has(f) &&
          !f.startsWith('bench/results/') &&
          !/\.(jpe?g|png|otf|ttf|gz|traineddata|mjpeg|y4m|wasm|node)$/.test(f),
      );
    const hits: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(path.join(root, file), 'utf8');
      } catch {
        continue; // listed but not checked out (a deletion not yet committed)
      }
      text.split('\n').forEach((line, i) => {
        if (PROCESS_WORDS.test(line)) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(hits).toEqual([]);
  });
});
