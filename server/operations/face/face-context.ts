import type { SingleFramePolicy } from '../../../common/api/face-schemas.js';
import type { DecodedTemplate } from '../../../common/uitemplate/index.js';
import { MATCHING_ANALYSIS, type FaceEngine, type AnalyzeOptions, type FrameAnalysis } from '../../engines/index.js';
import {
  confidenceOf,
  falseAcceptProbability,
  identificationThreshold,
  type ImpostorModel,
  thresholdForFmr,
} from '../../matching/index.js';
import type { SearchIndex } from '../../search/index.js';
import type { Gallery } from '../../storage/index.js';
import { engineError } from '../engine-errors.js';
import type { IdentificationScoring } from './identification-scoring.js';

export interface FaceMatchingPolicy {
  /** Impostor distribution of the stored embeddings' cosine: 1:1 decisions. */
  impostors: ImpostorModel;
  identification: IdentificationScoring;
  /** Default 1:1 threshold, as a false-match rate per comparison. */
  verifyFmr: number;
  /** Target share of strangers accepted by identification (and duplicate search). */
  identifyFpir: number;
  /** Lowest quality score a sample must have to be enrolled. */
  enrollMinQuality: number;
  /** Lowest IOD in pixels for an enrollment sample. */
  enrollMinIod: number;
  /** Default probe gates of identification (a request may lower or raise them). */
  identifyMinQuality: number;
  identifyMinIod: number;
  /** Attack confidence at or above which a capture is refused as a spoof. */
  spoofThreshold: number;
  /** Whether one usable image may be certified as a live person. */
  spoofSingleFrame: SingleFramePolicy;
}

export interface FaceDeps {
  engine: FaceEngine;
  gallery: Gallery;
  index: SearchIndex;
  policy: FaceMatchingPolicy;
}

/** What every face use case shares: its dependencies, the thresholds in force, scoring and analysis. */
export interface FaceContext extends FaceDeps {
  /** The default 1:1 threshold, as a confidence. */
  verifyThreshold: number;
  /** The default 1:N threshold for the gallery's size now. */
  identifyThreshold(): number;
  /** A cosine as the answers carry it: rounded, its confidence and false-accept probability under `impostors`. */
  scoreOn(s: number, impostors: ImpostorModel): { score: number; confidence: number; faP: number };
  /** The same under the 1:1 impostors. */
  score(s: number): { score: number; confidence: number; faP: number };
  /** The template's first `frames` frames analysed by the engine, its failures as the client sees them. */
  analyze(template: DecodedTemplate, options: AnalyzeOptions, frames?: number): Promise<FrameAnalysis[]>;
}

/** What verification, identification and a spoof check ask of the engine. */
export const BASE_ANALYSIS = MATCHING_ANALYSIS;

export function faceContext(deps: FaceDeps): FaceContext {
  const { engine, index, policy } = deps;
  const verifyThreshold = thresholdForFmr(policy.verifyFmr);
  const scoreOn = (s: number, impostors: ImpostorModel) => ({
    score: Math.round(s * 10_000) / 10_000,
    confidence: confidenceOf(s, impostors),
    faP: Number(falseAcceptProbability(s, impostors).toPrecision(3)),
  });
  return {
    ...deps,
    verifyThreshold,
    identifyThreshold: () =>
      Math.round(identificationThreshold(index.sampleCount, policy.identifyFpir, verifyThreshold) * 10) / 10,
    scoreOn,
    score: (s) => scoreOn(s, policy.impostors),
    async analyze(template, options, frames = template.frames.length) {
      try {
        return await engine.analyzeFrames(template.frames.slice(0, frames), options);
      } catch (error) {
        throw engineError(error);
      }
    },
  };
}

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
export const round1 = (x: number): number => Math.round(x * 10) / 10;
