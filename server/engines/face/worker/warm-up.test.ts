import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';
import type { AnalyzeOptions, FrameAnalysis, WarmUpReport } from '../types.js';
import { FULL_ANALYSIS } from '../analyze-options.js';
import { WARM_UP_RUNS, warmUp } from './warm-up.js';

describe('face worker warm-up', () => {
  it('runs the whole pipeline on the installed warm-up face before the worker reports ready', async () => {
    const reports: unknown[] = [];
    const engine = FaceEngine.start({
      modelsDir: defaultModelsDir(),
      workers: 1,
      onEvent: (event, detail) => event === 'worker-ready' && reports.push(detail),
    });
    try {
      await engine.ready();
      expect(reports).toHaveLength(1);
      const report = reports[0] as WarmUpReport;
      expect(report).toMatchObject({ runs: WARM_UP_RUNS, faceFound: true, described: WARM_UP_RUNS });
      expect(report.ms).toHaveLength(WARM_UP_RUNS);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('asks for every model a request can use, and is skipped when off or without its face', async () => {
    const calls: AnalyzeOptions[] = [];
    const analyze = (_image: Uint8Array, options: AnalyzeOptions) => {
      calls.push(options);
      return Promise.resolve({ major: null } as unknown as FrameAnalysis);
    };
    expect(await warmUp(analyze, defaultModelsDir())).toMatchObject({ runs: WARM_UP_RUNS, faceFound: true, described: 0 });
    expect(calls).toHaveLength(WARM_UP_RUNS);
    expect(calls[0]).toMatchObject({
      embedding: true,
      ageGender: true,
      emotion: true,
      presentation: true,
      traits: true,
      portrait: true,
      frameJpeg: true,
    });
    expect(calls[0]).toBe(FULL_ANALYSIS);

    calls.length = 0;
    // engines.face.warmUp off: no run, the face still reported as installed.
    expect(await warmUp(analyze, defaultModelsDir(), 0)).toEqual({ runs: 0, ms: [], faceFound: true, described: 0 });
    expect(calls).toHaveLength(0);

    const empty = mkdtempSync(path.join(tmpdir(), 'warm-up-'));
    try {
      calls.length = 0;
      expect(await warmUp(analyze, empty)).toEqual({ runs: 0, ms: [], faceFound: false, described: 0 });
      expect(calls).toHaveLength(0);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
