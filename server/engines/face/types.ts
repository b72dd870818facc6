/** Data that crosses between the face worker threads and the main thread (structured-clone safe). */

import type { Box, Point } from '../../imaging/index.js';
import type { WarmUpReport } from '../warm-up.js';

export type { Box, Point };

/** Where the recognition networks run: onnxruntime's native CPU kernels, or tfjs's WASM backend. */
export type NetworkRuntime = 'native' | 'wasm';

export interface AnalyzeOptions {
  /** Compute the recognition embedding of the major face. */
  embedding: boolean;
  ageGender: boolean;
  emotion: boolean;
  /** Antispoof and liveness model scores. */
  presentation: boolean;
  /** The pixel cues a single still is judged on (`singleFrame: 'judge'` only; analysis/still-cues.ts). */
  stillCues?: boolean;
  /** Cues for traits (eyes, mouth, glasses, beard, ...). */
  traits: boolean;
  /** Width of the thumbnail JPEG, or 0 for none. */
  thumbnailWidth: number;
  /** ICAO-style portrait crop of the major face. */
  portrait: boolean;
  /** Extra vertical margin for the portrait (vendor `scaleH`, 0..2). */
  scaleH: number;
  /** The oriented frame as JPEG (faceImage). */
  frameJpeg: boolean;
  /** Contrast-limited adaptive histogram equalization when the frame needs it. */
  clahe: { enabled: boolean; minClip: number; maxClip: number };
  /** Which face to describe: the dominant one (operations) or simply the largest (evaluation). */
  majorPolicy?: 'dominant' | 'largest';
  /**
   * Detector confidence (0..1) of a sure face: a box scored under it and drawn around a sure face
   * is not a face of its own (`minConfidence` / 100; DEFAULT_MIN_FACE_SCORE when absent).
   */
  minFaceScore?: number;
}

export interface DetectedFace {
  box: Box;
  /** Detector confidence 0..1. */
  score: number;
}

export interface MajorFace extends DetectedFace {
  /** Eye centres (iris), in frame pixels; `left` is the subject's left eye (larger x in a non-mirrored image). */
  leftEye: Point;
  rightEye: Point;
  noseTip: Point;
  leftEyeRegion: Box;
  rightEyeRegion: Box;
  noseRegion: Box;
  /** face-api's 68-point landmarks in frame pixels: the recognition crops and the spectacle cues are placed by them. */
  landmarks68: Point[];
  /**
   * The 68 points reported (and the nose tip and regions above): Human's mesh at the iBUG places
   * where the mesh ran, which the other traits and the age and gender crop also read; face-api's
   * otherwise. face-api's slip where its landmark net is given too loose a box (docs/face-engine.md).
   */
  points68: Point[];
  iod: number;
  /** Degrees. */
  yaw: number;
  pitch: number;
  roll: number;
  /** Lid gap over eye width for each eye (about 0.3 open, under 0.15 closed). */
  leftEyeOpenness: number;
  rightEyeOpenness: number;
  /** Inner lip gap over mouth width. */
  mouthOpenness: number;
  age: number | null;
  gender: { type: 'MALE' | 'FEMALE'; score: number } | null;
  /** face-api's 7 expression probabilities, keyed angry, disgust, fear, happy, neutral, sad, surprise. */
  emotion: Record<string, number> | null;
  /** Human's antispoof ("real") and liveness ("live") scores, 0..1. */
  real: number | null;
  live: number | null;
  /** Image measurements on the face region, 0..1 unless stated. */
  image: FaceImageStats;
  /** Attribute cues, 0..1, from image regions around the landmarks. */
  cues: AttributeCues | null;
  /** Single-frame presentation-attack cues (when presentation is asked for). */
  presentation: {
    bezel: number;
    sides: { left: number; right: number; top: number; bottom: number };
    /** The best line's coverage inside the face box's outer part, before the bar it must pass. */
    inner: { left: number; right: number };
  } | null;
  /** The single-still cues by name, when asked for (stillCues). */
  still?: Record<string, number> | null;
  embedding: Float32Array | null;
  thumbnail: Uint8Array | null;
  portrait: Uint8Array | null;
}

export interface FaceImageStats {
  /** Mean luminance of the face box, 0..1. */
  brightness: number;
  /** Luminance standard deviation in the face box, 0..1. */
  contrast: number;
  /** Variance of the Laplacian of the face's luma, its box resized to 128 px wide: a sharpness measure. */
  sharpness: number;
  /** Share of clipped (very dark or very bright) pixels in the face box. */
  clipped: number;
}

export interface AttributeCues {
  glasses: number;
  darkGlasses: number;
  beard: number;
  mustache: number;
  hat: number;
}

export interface FrameAnalysis {
  width: number;
  height: number;
  /** Every face found, largest first. */
  faces: DetectedFace[];
  /** Details of faces[0] when there is at least one face. */
  major: MajorFace | null;
  /** Clip limit of the CLAHE applied, 0 when none was needed or allowed. */
  clahe: number;
  frameJpeg: Uint8Array | null;
  /** Raw luminance statistics of the whole frame, before CLAHE. */
  frameBrightness: number;
  timings: Record<string, number>;
}

export type WorkerRequest =
  | { id: number; type: 'analyze'; image: Uint8Array; options: AnalyzeOptions }
  | { id: number; type: 'crash' };

export type WorkerResponse =
  | { id: number; ok: true; result: FrameAnalysis }
  | { id: number; ok: false; error: string; kind: 'image' | 'engine' };

export type WorkerStatus =
  | {
      type: 'ready';
      modelId: string;
      warmUp: WarmUpReport;
      /** Where the recognition networks run, and why not natively when `auto` fell back. */
      descriptors: { runtime: NetworkRuntime; fallbackReason: string | null; borrowsIdleCores: boolean };
      /** The same for the face's other networks (Human's; face-api's landmarks, age and gender). */
      analysis: { runtime: NetworkRuntime; fallbackReason: string | null };
    }
  | { type: 'failed'; error: string };
