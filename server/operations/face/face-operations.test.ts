import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gaussian, seededRandom } from '../../../test/random.js';
import type { DecodedTemplate } from '../../../common/uitemplate/index.js';
import type { FaceEngine } from '../../engines/face/face-engine.js';
import type { FrameAnalysis, MajorFace } from '../../engines/face/types.js';
import { keepInStep } from '../../gallery-index/index-sync.js';
import type { OperationContext, OperationHandlers } from '../operation-handler.js';
import { createLogger } from '../../log/logger.js';
import { confidenceOf, type ImpostorModel } from '../../matching/calibration.js';
import { normalize } from '../../matching/similarity.js';
import { EmbeddingIndex } from '../../search/index.js';
import { type Gallery, openSqliteStation, type SqliteStation } from '../../storage/index.js';
import { faceOperations, type FaceMatchingPolicy } from './face-operations.js';

// Identification and duplicate search score against the gallery of the moment: half the probe's
// similarity to the gallery's mean sample comes off (matching/gallery-centre.ts). Faces here are
// embeddings handed out by a stand-in engine, so the expected scores are known exactly; the real
// engine's operations are covered end to end in e2e/api.
const MODEL = 'test-model@1';
const DIM = 16;
const PEOPLE = 150;
const SHARE = 0.5;
const PRIOR = 100; // CENTRE_PRIOR_SAMPLES, restated so the test does not take it from the code it checks
const plain: ImpostorModel = { mean: 0.6, std: 0.1, source: 'test' };
const centred: ImpostorModel = { mean: 0.45, std: 0.1, source: 'test' };

/**
 * Unit vectors that share one look in part, as a population's faces do (cosine about 0.8 to the
 * first axis): each probe scores high against everyone, and much comes off.
 */
function population(seed: number): () => Float32Array {
  const r = seededRandom(seed);
  return () => normalize(Float32Array.from({ length: DIM }, (_, i) => (i === 0 ? 1 : (0.75 * gaussian(r)) / Math.sqrt(DIM))));
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, ai, i) => s + ai * b[i]!, 0);

/** A sharp, frontal, well-lit face whose embedding is the one the stand-in engine is told to show. */
function analysisOf(embedding: Float32Array): FrameAnalysis {
  const face = {
    box: { x: 200, y: 120, width: 240, height: 240 },
    score: 0.99,
    leftEye: [380, 200],
    rightEye: [260, 200],
    noseTip: [320, 260],
    iod: 120,
    yaw: 0,
    pitch: 0,
    roll: 0,
    leftEyeOpenness: 0.3,
    rightEyeOpenness: 0.3,
    mouthOpenness: 0,
    image: { brightness: 0.5, contrast: 0.2, sharpness: 3e-3, clipped: 0 },
    embedding,
    thumbnail: null,
    portrait: null,
  } as unknown as MajorFace;
  return { width: 640, height: 480, faces: [face], major: face, clahe: 0, frameJpeg: null, frameBrightness: 0.5, timings: {} };
}

describe('face operations score identification on the gallery', () => {
  let dir: string;
  let store: SqliteStation;
  let gallery: Gallery;
  let index: EmbeddingIndex;
  let shown: Float32Array;
  let ops: OperationHandlers;
  const enrolled = new Map<string, Float32Array>();
  const template = {
    frames: [{ data: new Uint8Array(1) }],
    digest: 'x',
    fechaCreacionTemplate: '',
  } as unknown as DecodedTemplate;
  const log = createLogger('silent');
  const context = <K extends 'identify' | 'enroll'>(request: unknown) =>
    ({ txId: 't', request, templates: { template }, log }) as unknown as OperationContext<K>;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'enrolla-face-ops-'));
    store = openSqliteStation(dir, randomBytes(32));
    gallery = store.gallery;
    index = new EmbeddingIndex(DIM);
    await keepInStep(gallery, index, MODEL);
    const next = population(7);
    enrolled.clear();
    for (let i = 0; i < PEOPLE; i++) {
      const embedding = next();
      enrolled.set(`p${i}`, embedding);
      await gallery.enroll(`p${i}`, [{ modelId: MODEL, embedding, quality: 80, thumbnail: null }], { replace: false });
    }
    const engine = {
      modelId: MODEL,
      analyzeFrames: (frames: readonly unknown[]) => Promise.resolve(frames.map(() => analysisOf(shown))),
    } as unknown as FaceEngine;
    const policy: FaceMatchingPolicy = {
      impostors: plain,
      identification: { view: (e) => e, centring: SHARE, impostors: plain, centredImpostors: centred },
      verifyFmr: 1e-3,
      identifyFpir: 0.01,
      enrollMinQuality: 0,
      enrollMinIod: 0,
      identifyMinQuality: 0,
      identifyMinIod: 0,
      spoofThreshold: 50,
      spoofSingleFrame: 'refuse',
    };
    ops = faceOperations({ engine, gallery, index, policy });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What comes off each score of `probe` (a unit vector), and the nearest enrolled person by the plain cosine. */
  function expected(probe: Float32Array) {
    const sum = new Float32Array(DIM);
    for (const e of enrolled.values()) e.forEach((v, i) => (sum[i]! += v));
    const shift = (SHARE * dot(probe, sum)) / (PEOPLE + PRIOR);
    const [idPersona, raw] = [...enrolled].map(([id, e]) => [id, dot(probe, e)] as const).sort((a, b) => b[1] - a[1])[0]!;
    const weight = PEOPLE / (PEOPLE + PRIOR);
    const impostors = { mean: plain.mean + weight * (centred.mean - plain.mean), std: 0.1, source: 'test' };
    return { shift, idPersona, raw, impostors };
  }

  it('identify takes the probe’s share of the gallery’s mean sample off every score', async () => {
    shown = population(99)();
    const { shift, idPersona, raw, impostors } = expected(shown);
    expect(shift).toBeGreaterThan(0.1); // the case is only telling when much comes off
    const result = await ops.identify!(context<'identify'>({ parametros: { maxResults: 3, threshold: 0 } }));
    expect(result.status).toBe('IDENTIFY_OK');
    const top = (result as { candidates: { idPersona: string; score: number; confidence: number }[] }).candidates[0]!;
    expect(top.idPersona).toBe(idPersona);
    expect(top.score).toBeCloseTo(raw - shift, 3);
    expect(top.confidence).toBeCloseTo(confidenceOf(raw - shift, impostors), 0);
  });

  it('duplicate search at enrollment judges the same centred score', async () => {
    shown = population(123)();
    const { shift, idPersona, raw, impostors } = expected(shown);
    const [asCentred, asPlain] = [confidenceOf(raw - shift, impostors), confidenceOf(raw, impostors)];
    expect(asPlain - asCentred).toBeGreaterThan(5);
    const enroll = (id: string, duplicateThreshold: number) =>
      ops.enroll!(
        context<'enroll'>({ idPersona: id, parametros: { duplicateSearch: true, duplicateThreshold, replaceSamples: false } }),
      );

    // Under the centred confidence: a duplicate of the nearest person, and nothing is stored.
    expect(await enroll('n1', asCentred - 1)).toMatchObject({ status: 'DUPLICATED_TEMPLATE', duplicatedIdPersona: idPersona });
    expect(await gallery.getPerson('n1')).toBeFalsy();
    // Above it, though under the plain cosine's: not a duplicate.
    expect((await enroll('n1', (asCentred + asPlain) / 2)).status).toBe('SUCCESS');
  });
});
