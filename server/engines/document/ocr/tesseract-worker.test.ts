import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelFileMissingError } from '../../models-dir.js';
import { checkTraineddata, createLocalWorker, OcrWorkerStartError } from './tesseract-worker.js';
import { defaultModelsDir } from '../../models-dir.js';

describe('createLocalWorker', () => {
  it('refuses at once when the language file is missing (tesseract.js would try a CDN, then hang)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'enrolla-tess-'));
    try {
      await expect(createLocalWorker({ langDir: dir, lang: 'mrz', gzip: false })).rejects.toBeInstanceOf(ModelFileMissingError);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('accepts the shipped language files', () => {
    expect(() => checkTraineddata(path.join(defaultModelsDir(), 'tesseract', 'mrz.traineddata'), false)).not.toThrow();
    expect(() => checkTraineddata(path.join(defaultModelsDir(), 'tesseract', 'spa.traineddata.gz'), true)).not.toThrow();
  });

  it('refuses a corrupt language file before tesseract sees it, and writes nothing in the working directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'enrolla-tess-'));
    const before = readdirSync(process.cwd()).sort();
    try {
      writeFileSync(path.join(dir, 'mrz.traineddata'), Buffer.alloc(1000, 7));
      await expect(createLocalWorker({ langDir: dir, lang: 'mrz', gzip: false, timeoutMs: 8000 })).rejects.toBeInstanceOf(
        OcrWorkerStartError,
      );
      expect(readdirSync(process.cwd()).sort()).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
