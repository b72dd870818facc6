import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentEngine } from './document/document-engine.js';
import { FULL_ANALYSIS } from './face/analyze-options.js';
import { defaultModelsDir, FaceEngine } from './face/face-engine.js';
import type { AnalyzeOptions, FrameAnalysis } from './face/types.js';
import { FACE_WARM_UP_RUNS, warmUpFace } from './face/worker/warm-up-face.js';
import { DOCUMENT_WARM_UP_RUNS } from './document/worker/warm-up-cards.js';
import { warmUp, type WarmUpReport } from './warm-up.js';

describe('warmUp', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'warm-up-'));
    writeFileSync(path.join(dir, 'a'), 'A');
    writeFileSync(path.join(dir, 'b'), 'B');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every sample input each run, and counts the runs in which all went the whole way', async () => {
    const seen: string[] = [];
    let calls = 0;
    const run = (input: Uint8Array, i: number) => {
      seen.push(`${Buffer.from(input).toString()}${i}`);
      return Promise.resolve(++calls !== 2); // the second input of the first run falls short
    };
    const report = await warmUp([path.join(dir, 'a'), path.join(dir, 'b')], run, 2);
    expect(seen).toEqual(['A0', 'B1', 'A0', 'B1']);
    expect(report).toMatchObject({ runs: 2, filesFound: true, complete: 1, error: null });
    expect(report.ms).toHaveLength(4);
  });

  it('does nothing when off or when a sample input is missing', async () => {
    let calls = 0;
    const run = () => Promise.resolve(++calls > 0);
    expect(await warmUp([path.join(dir, 'a')], run, 0)).toEqual({ runs: 0, ms: [], filesFound: true, complete: 0, error: null });
    expect(await warmUp([path.join(dir, 'a'), path.join(dir, 'missing')], run, 3)).toEqual({
      runs: 0,
      ms: [],
      filesFound: false,
      complete: 0,
      error: null,
    });
    expect(calls).toBe(0);
  });

  it('keeps going when a sample input fails, and reports the first error', async () => {
    let calls = 0;
    const run = () => (++calls === 1 ? Promise.reject(new Error('no face')) : Promise.resolve(true));
    expect(await warmUp([path.join(dir, 'a')], run, 3)).toMatchObject({ runs: 3, complete: 2, error: 'no face' });
    expect(calls).toBe(3);
  });

  it('asks the face runtime for every model a request can use', async () => {
    const options: AnalyzeOptions[] = [];
    const runtime = {
      analyze: (_image: Uint8Array, o: AnalyzeOptions) => {
        options.push(o);
        return Promise.resolve({ major: null } as unknown as FrameAnalysis);
      },
    };
    expect(await warmUpFace(runtime, defaultModelsDir())).toMatchObject({ runs: FACE_WARM_UP_RUNS, complete: 0 });
    expect(options).toEqual(Array(FACE_WARM_UP_RUNS).fill(FULL_ANALYSIS));
  });
});

// The real engines: each worker takes its sample through the whole pipeline before it reports ready.
describe('engine workers warm up before they report ready', () => {
  async function readyReports(
    start: (onEvent: (event: string, detail?: unknown) => void) => { ready(): Promise<void>; close(): Promise<void> },
  ) {
    const reports: WarmUpReport[] = [];
    const engine = start(
      (event, detail) => event === 'worker-ready' && reports.push((detail as { warmUp: WarmUpReport }).warmUp),
    );
    try {
      await engine.ready();
    } finally {
      await engine.close();
    }
    return reports;
  }

  it('the face worker describes the warm-up face with every model', async () => {
    const reports = await readyReports((onEvent) => FaceEngine.start({ modelsDir: defaultModelsDir(), workers: 1, onEvent }));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ runs: FACE_WARM_UP_RUNS, filesFound: true, complete: FACE_WARM_UP_RUNS, error: null });
  }, 120_000);

  it("the document worker reads the sample card's barcode and MRZ", async () => {
    const reports = await readyReports((onEvent) => DocumentEngine.start({ modelsDir: defaultModelsDir(), onEvent }));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      runs: DOCUMENT_WARM_UP_RUNS,
      filesFound: true,
      complete: DOCUMENT_WARM_UP_RUNS,
      error: null,
    });
  }, 120_000);
});
