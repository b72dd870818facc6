import type { Config, FaceResult, Human } from '@vladmandic/human';
import type { FaceObservation } from './face-guidance.js';
import { forcedBackend, modelBase } from './model-route.js';

export type GuidanceBackend = 'webgl' | 'wasm';

/**
 * Software WebGL (SwiftShader, llvmpipe, WARP...) runs Human's shaders on the CPU, much slower
 * than the WebAssembly backend: measured 3.4-3.8 s against 0.06-0.16 s a frame in headless
 * Chromium on this machine.
 */
export function isSoftwareRenderer(renderer: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software|microsoft basic render|warp/i.test(renderer);
}

/** WebGL on a real GPU, otherwise WebAssembly. */
export function pickBackend(): GuidanceBackend {
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2') ?? canvas.getContext('webgl');
    if (!gl) return 'wasm';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    return isSoftwareRenderer(renderer) ? 'wasm' : 'webgl';
  } catch {
    return 'wasm';
  }
}

/**
 * Light models only (detector, mesh, iris): enough for box, pose and eyes on every frame. Every
 * path is the station's own; Human's defaults (a CDN for the WebAssembly files, `../models/`)
 * are overridden here and must stay so: the station runs without internet.
 */
export function guidanceConfig(backend: GuidanceBackend, base: string): Partial<Config> {
  return {
    backend,
    modelBasePath: `${base}human/`,
    wasmPath: `${base}tfjs-wasm/`,
    wasmPlatformFetch: false,
    debug: false,
    async: true,
    warmup: 'none',
    cacheModels: false,
    // Frames of a live preview: Human may reuse the last detection for a similar frame.
    cacheSensitivity: 0.01,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 3, minConfidence: 0.3, return: false, skipFrames: 0 },
      mesh: { enabled: true },
      iris: { enabled: true },
      attention: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      gear: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  } as Partial<Config>;
}

let shared: Promise<{ human: Human; backend: GuidanceBackend }> | null = null;

/** One Human per page, loaded on first use (the bundle's Human chunk is fetched only then). */
export function loadDetector(): Promise<{ human: Human; backend: GuidanceBackend }> {
  shared ??= (async () => {
    const { Human } = await import('@vladmandic/human');
    const backend = forcedBackend() ?? pickBackend();
    const human = new Human(guidanceConfig(backend, modelBase()));
    await human.load();
    await human.tf.ready();
    return { human, backend };
  })();
  shared.catch(() => {
    shared = null;
  });
  return shared;
}

type Point2 = [number, number];
const mid = (a: Point2, b: Point2): Point2 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
const dist = (a: Point2, b: Point2): number => Math.hypot(a[0] - b[0], a[1] - b[1]);
const deg = (rad: number): number => (rad * 180) / Math.PI;

/** Lid gap over eye width, from four mesh points (same measure as the station's engine). */
function openness(upper: Point2, lower: Point2, a: Point2, b: Point2): number {
  const width = dist(a, b);
  return width > 0 ? dist(upper, lower) / width : 0;
}

/** Human's face result as the guidance rules see it. */
export function observe(face: FaceResult): FaceObservation {
  const p = (i: number): Point2 => {
    const q = face.mesh[i];
    return q ? [q[0], q[1]] : [0, 0];
  };
  const irisA = face.annotations.leftEyeIris?.[0];
  const irisB = face.annotations.rightEyeIris?.[0];
  const eyeA: Point2 = irisA ? [irisA[0], irisA[1]] : mid(p(362), p(263));
  const eyeB: Point2 = irisB ? [irisB[0], irisB[1]] : mid(p(33), p(133));
  const hasMesh = face.mesh.length >= 468;
  const smallX = hasMesh ? openness(p(159), p(145), p(33), p(133)) : 1;
  const largeX = hasMesh ? openness(p(386), p(374), p(362), p(263)) : 1;
  const [left, right] = p(33)[0] < p(263)[0] ? [largeX, smallX] : [smallX, largeX];
  const angle = face.rotation?.angle ?? { yaw: 0, pitch: 0, roll: 0 };
  const [x, y, width, height] = face.box;
  return {
    box: { x, y, width, height },
    score: face.score,
    iod: dist(eyeA, eyeB),
    yaw: deg(angle.yaw),
    // Human's pitch grows looking down; the station's convention is the opposite.
    pitch: -deg(angle.pitch),
    roll: deg(angle.roll),
    leftEyeOpenness: left,
    rightEyeOpenness: right,
  };
}
