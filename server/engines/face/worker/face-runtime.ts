import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { applyLuma, claheClipFor, claheMapping } from '../analysis/clahe.js';
import { attributeCues } from '../analysis/cues.js';
import { meshAs68 } from '../analysis/mesh-landmarks.js';
import {
  boundingBox,
  centroid,
  dlibAlignmentBox,
  dlibChipPlacement,
  grow,
  openness,
  toDegrees,
  tokenPortraitBox,
} from '../analysis/geometry.js';
import { chooseMajorFace, DEFAULT_MIN_FACE_SCORE, largestFace } from '../analysis/major-face.js';
import { framingCue } from '../analysis/presentation-cues.js';
import { stillCues } from '../analysis/still-cues.js';
import {
  decodeRgb,
  type RgbImage,
  warpPerspective,
  withoutPersonalMetadata,
  clampBox,
  laplacianVariance,
  lumaOf,
  regionStats,
  type Plane,
} from '../../../imaging/index.js';
import { rotatedBoxToSource } from '../analysis/warp.js';
import { fuseDescriptors } from '../fused-descriptor.js';
import { fivePoints, meshFivePoints } from '../tflite/align.js';
import type { IdleWorkers } from '../../idle-workers.js';
import {
  loadDescriptorNets,
  type DescriptorNets,
  type NetworkRuntime,
  type NetworkRuntimeSetting,
} from '../native/descriptor-nets.js';
import { faceApiNetsOnNative } from '../native/faceapi-nets.js';
import { humanGraphsOnNative, NATIVE_HUMAN_GRAPHS } from '../native/human-graphs.js';
import { readNetworkFile } from '../native/network-files.js';
import { modelFile } from '../../models-dir.js';
import { arcfaceCrop, boxCrop, MobileFaceNetTflite, mirrored } from '../tflite/expo-models.js';
import { meanDirection, normalize } from '../../../matching/index.js';
import { RESNET_INPUT } from '../native/faceapi-resnet-onnx.js';
import { ReusedInt32 } from './reused-int32.js';
import { deferRotations } from './deferred-rotation.js';
import { cropTensor, landmarksInBox, regionTensor } from './face-api-input.js';
import type { AnalyzeOptions, Box, DetectedFace, FaceImageStats, FrameAnalysis, MajorFace, Point } from '../types.js';
import {
  fileUrlOfDir,
  installFileModelRouter,
  loadFaceApiModule,
  loadHumanModule,
  tf,
  type FaceApi,
  type HumanFace,
  type HumanInstance,
} from './model-loader.js';

/** The recognition model whose embeddings the gallery stores; samples of another model are not comparable. */
export { FACE_MODEL_ID } from '../face-model.js';

type Decoded = RgbImage;

/**
 * One thread's face models: Human (blazeface, mesh, iris, antispoof, liveness) finds
 * and describes faces; face-api's 68 landmarks (with the mesh) place the ArcFace 5-point crops
 * for MobileFaceNet, dlib's square and turned chip for face-api's ResNet, and dlib's square for
 * age, gender and expression; the two descriptors fused are the stored embedding (measured best of the
 * offline descriptors, docs/face-engine.md).
 */
export class FaceRuntime {
  private constructor(
    private readonly human: HumanInstance,
    private readonly faceapi: FaceApi,
    /** MobileFaceNet and face-api's ResNet, natively where onnxruntime loads. */
    readonly descriptors: DescriptorNets,
    /** Where the face's other networks run (Human's; face-api's landmarks, age and gender). */
    readonly analysis: { runtime: NetworkRuntime; fallbackReason: string | null },
  ) {}

  static async load(
    modelsDir: string,
    networkRuntime: NetworkRuntimeSetting = 'auto',
    idle: IdleWorkers | null = null,
  ): Promise<FaceRuntime> {
    const { human, faceapi } = await loadFaceLibraries(modelsDir);
    deferRotations();
    const expo = MobileFaceNetTflite.load(modelsDir);
    const descriptors = await loadDescriptorNets(networkRuntime, modelsDir, expo, faceapi, idle);
    return new FaceRuntime(
      human,
      faceapi,
      descriptors,
      analysisOnRuntime(modelsDir, human, faceapi, networkRuntime, descriptors),
    );
  }

  /** The frame's bytes as int32 for tfjs, kept up to a 1080p camera frame. */
  private readonly frameValues = new ReusedInt32(1920 * 1080 * 3);

  async analyze(image: Uint8Array, options: AnalyzeOptions): Promise<FrameAnalysis> {
    const timings: Record<string, number> = {};
    let t = performance.now();
    const lap = (name: string) => {
      const now = performance.now();
      timings[name] = Math.round((now - t) * 10) / 10;
      t = now;
    };
    const frame = await decodeRgb(image);
    const luma = lumaOf(frame.rgb, frame.width, frame.height);
    const whole = regionStats(luma, { x: 0, y: 0, width: frame.width, height: frame.height });
    const clip = options.clahe.enabled ? claheClipFor(whole, options.clahe.minClip, options.clahe.maxClip) : 0;
    const work = clip > 0 ? applyLuma(frame.rgb, luma.data, claheMapping(luma, clip)) : frame.rgb;
    lap('decode');

    let humanFaces = await this.detect(work, frame.width, frame.height, options);
    lap('detect');
    if (needsPaddedPass(humanFaces, frame, options.minFaceScore)) {
      // A face that fills the frame, or is cut by its edge, is missed or boxed twice by detectors
      // trained on faces with context around them: looked for again with a border around the frame.
      const padded = await Promise.all(PADDED_PASSES.map((pass) => this.detectPadded(work, frame, pass, options)));
      humanFaces = mergeDetections([...humanFaces, ...padded.flat()]);
      lap('detect-padded');
    }

    const faces: DetectedFace[] = humanFaces.map((f) => ({
      box: { x: f.box[0], y: f.box[1], width: f.box[2], height: f.box[3] },
      score: f.score,
    }));
    const largest = options.majorPolicy === 'largest' ? largestFace(faces, options.minFaceScore) : null;
    const decision =
      largest !== null
        ? ({ kind: 'single', index: largest } as const)
        : chooseMajorFace(faces, frame, true, options.minFaceScore);
    // JPEG encodes run on libuv's threads while this thread runs the models: started early, awaited last.
    const frameJpegP = options.frameJpeg ? frameImage(image, frame) : null;
    void frameJpegP?.catch(() => undefined);
    let major: MajorFace | null = null;
    if (decision.kind === 'single' || decision.kind === 'dominant') {
      major = await this.describe(
        humanFaces[decision.index]!,
        faces[decision.index]!,
        { ...frame, rgb: work },
        frame,
        luma,
        options,
        lap,
      );
    }
    const frameJpeg = frameJpegP ? await frameJpegP : null;
    lap('encode');
    return {
      width: frame.width,
      height: frame.height,
      faces,
      major,
      clahe: clip,
      frameJpeg,
      frameBrightness: whole.mean,
      timings,
    };
  }

  /** Human's detections on an RGB image, largest first; models an operation does not need are off. */
  private async detect(rgb: Uint8Array, width: number, height: number, options: AnalyzeOptions): Promise<HumanFace[]> {
    const values = this.frameValues.take(rgb.length);
    values.set(rgb);
    const input = tf.tensor4d(values, [1, height, width, 3], 'int32');
    try {
      const result = await this.human.detect(input, {
        face: {
          antispoof: { enabled: options.presentation },
          liveness: { enabled: options.presentation },
        },
      });
      return [...result.face].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    } finally {
      input.dispose();
    }
  }

  /**
   * The frame inside a border of its own mean colour (a mirrored border would hold mirrored
   * faces), at a size the detector reads well; the detections mapped back onto the frame, and
   * those whose centre falls in the border dropped. Only the detector sees the border: every
   * crop is cut from the frame's own pixels.
   */
  private async detectPadded(
    rgb: Uint8Array,
    frame: { width: number; height: number },
    pass: { border: number; maxSide: number },
    options: AnalyzeOptions,
  ): Promise<HumanFace[]> {
    const border = Math.round(pass.border * Math.max(frame.width, frame.height));
    const [pw, ph] = [frame.width + 2 * border, frame.height + 2 * border];
    const scale = Math.min(1, pass.maxSide / Math.max(pw, ph));
    const [sw, sh] = [Math.round(pw * scale), Math.round(ph * scale)];
    // Two pipelines: sharp resizes before it extends, whatever the order of the calls.
    const framed = await sharp(rgb, { raw: { width: frame.width, height: frame.height, channels: 3 } })
      .extend({ top: border, bottom: border, left: border, right: border, background: meanColour(rgb) })
      .raw()
      .toBuffer();
    const { data } = await sharp(framed, { raw: { width: pw, height: ph, channels: 3 } })
      .resize(sw, sh, { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const found = await this.detect(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), sw, sh, options);
    const back = ([x, y, z]: [number, number, number?]): [number, number, number?] => [x / scale - border, y / scale - border, z];
    return found
      .map((f) => ({
        ...f,
        box: [f.box[0] / scale - border, f.box[1] / scale - border, f.box[2] / scale, f.box[3] / scale] as HumanFace['box'],
        mesh: f.mesh.map(back),
        annotations: Object.fromEntries(Object.entries(f.annotations).map(([k, pts]) => [k, pts.map(back)])),
      }))
      .filter((f) => {
        const [cx, cy] = [f.box[0] + f.box[2] / 2, f.box[1] + f.box[3] / 2];
        return cx >= 0 && cy >= 0 && cx < frame.width && cy < frame.height;
      });
  }

  /**
   * face-api's ResNet on four views, as MobileFaceNet gets them: dlib's alignment square and dlib's
   * chip turned level with the eyes (two placements from the same 68 points that err differently on
   * tilted faces), each with its mirror image, all cut from the frame as received. In that order.
   */
  private async resNetViews(original: Decoded, align: Box, landmarks68: readonly Point[]): Promise<Float32Array[]> {
    const { box, roll } = dlibChipPlacement(landmarks68);
    const chip = boxCrop(original, box, roll, RESNET_INPUT);
    const views = [
      regionTensor(original, align),
      regionTensor(original, align, true),
      cropTensor(chip, RESNET_INPUT),
      cropTensor(chip, RESNET_INPUT, true),
    ];
    try {
      return await this.descriptors.faceApiDescriptors(views);
    } finally {
      for (const view of views) view.dispose();
    }
  }

  private async describe(
    hf: HumanFace,
    detected: DetectedFace,
    work: Decoded,
    original: Decoded,
    luma: Plane,
    options: AnalyzeOptions,
    lap: (name: string) => void,
  ): Promise<MajorFace> {
    const sharpnessP = faceSharpness(original, detected.box);
    const thumbnailP = options.thumbnailWidth > 0 ? thumbnailOf(original, detected.box, options.thumbnailWidth) : null;
    // Awaited below; a rejection before then must not count as unhandled.
    void sharpnessP.catch(() => undefined);
    void thumbnailP?.catch(() => undefined);
    const faceBox = clampBox(detected.box, work.width, work.height);
    const landmarks68 = await landmarksInBox(this.faceapi.nets.faceLandmark68Net, work, faceBox);
    lap('landmarks');

    const mesh = hf.mesh.map((p) => [p[0], p[1]] as Point);
    const mesh68 = meshAs68(mesh);
    const points68 = mesh68 ?? landmarks68;
    const irisA = hf.annotations.leftEyeIris?.[0];
    const irisB = hf.annotations.rightEyeIris?.[0];
    // Iris centres when the iris model ran, eye-contour centres otherwise; the subject's left eye has the larger x.
    const eyeA: Point = irisA ? [irisA[0], irisA[1]] : centroid(landmarks68.slice(42, 48));
    const eyeB: Point = irisB ? [irisB[0], irisB[1]] : centroid(landmarks68.slice(36, 42));
    const [leftEye, rightEye] = eyeA[0] >= eyeB[0] ? [eyeA, eyeB] : [eyeB, eyeA];
    // The portrait's JPEG is encoded on libuv's pool while the recognition networks hold this thread.
    const portraitP = options.portrait ? portraitOf(original, rightEye, leftEye, options.scaleH) : null;
    void portraitP?.catch(() => undefined);
    let embedding: Float32Array | null = null;
    let age: number | null = null;
    let gender: MajorFace['gender'] = null;
    let emotion: MajorFace['emotion'] = null;
    if (options.embedding || options.ageGender || options.emotion) {
      // Not clamped to the frame: a face the frame cuts (a tight crop) keeps its place in the
      // networks' input, zeros beyond the edge, as on its full photo.
      const align = dlibAlignmentBox(landmarks68);
      if (options.embedding) {
        // Four views of each network: two crops placed by independent landmarks, so each one's
        // placement error partly cancels, and their mirror images; MobileFaceNet's two ArcFace
        // crops by face-api's 68 points and by Human's mesh and irises (without a mesh, the
        // 68-point crop twice), the ResNet's by dlib's square and dlib's turned chip. The two
        // networks err on different faces, so their descriptors are fused (docs/face-engine.md).
        const dlibFive = fivePoints(landmarks68);
        const meshFive =
          meshFivePoints(
            mesh,
            irisA && irisB
              ? [
                  [irisA[0], irisA[1]],
                  [irisB[0], irisB[1]],
                ]
              : null,
          ) ?? dlibFive;
        // Placed on the contrast-equalised frame, cut from the frame as received: the descriptors
        // learned natural photos, and CLAHE's local contrast cost them accuracy (docs/face-engine.md).
        const dlibCrop = arcfaceCrop(original, dlibFive);
        const meshCrop = arcfaceCrop(original, meshFive);
        const [byDlib, byMesh] = await this.descriptors.embedPair(dlibCrop, meshCrop);
        const [dlibMirror, meshMirror] = await this.descriptors.embedPair(mirrored(dlibCrop), mirrored(meshCrop));
        const fourViews = meanDirection(byDlib, byMesh, dlibMirror, meshMirror);
        const resNetViews = await this.resNetViews(original, align, landmarks68);
        embedding = fuseDescriptors(fourViews, meanDirection(...resNetViews.map(normalize)));
      }
      lap('embedding');
      if (options.ageGender || options.emotion) {
        // dlib's square of the frame as received (CLAHE's local contrast misled the networks as
        // it did the descriptors), placed by the mesh's eyes and mouth where the mesh ran: they
        // slip less than face-api's points (eval:attributes, docs/face-engine.md).
        const square = mesh68 ? dlibAlignmentBox(mesh68) : align;
        const crop = regionTensor(original, square);
        try {
          if (options.ageGender) {
            const ag = await this.faceapi.nets.ageGenderNet.predictAgeAndGender(crop);
            age = Math.round(ag.age * 10) / 10;
            gender = { type: ag.gender === 'male' ? 'MALE' : 'FEMALE', score: ag.genderProbability };
          }
          if (options.emotion) emotion = emotionsOf(await this.faceapi.nets.faceExpressionNet.predictExpressions(crop));
        } finally {
          crop.dispose();
        }
        lap('ageGenderExpression');
      }
    }

    const iod = Math.hypot(leftEye[0] - rightEye[0], leftEye[1] - rightEye[1]);
    const smallX = openness(mesh[159]!, mesh[145]!, mesh[33]!, mesh[133]!);
    const largeX = openness(mesh[386]!, mesh[374]!, mesh[362]!, mesh[263]!);
    const [leftOpen, rightOpen] = mesh[33]![0] < mesh[263]![0] ? [largeX, smallX] : [smallX, largeX];
    const mouthOpenness = openness(mesh[13]!, mesh[14]!, mesh[78]!, mesh[308]!);
    const angle = hf.rotation?.angle ?? {
      roll: Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]),
      yaw: 0,
      pitch: 0,
    };

    const stats = regionStats(luma, detected.box);
    const sharpness = await sharpnessP;
    const imageStats: FaceImageStats = { brightness: stats.mean, contrast: stats.std, sharpness, clipped: stats.clipped };
    const cues = options.traits ? attributeCues(luma, original.rgb, landmarks68, mesh68) : null;
    const presentation = options.presentation ? framingCue(luma, detected.box) : null;
    const still = options.stillCues ? stillCues(original, landmarks68) : null;
    lap('measures');

    const thumbnail = thumbnailP ? await thumbnailP : null;
    const portrait = portraitP ? await portraitP : null;
    lap('images');

    return {
      ...detected,
      leftEye,
      rightEye,
      noseTip: points68[30]!,
      leftEyeRegion: grow(boundingBox(points68.slice(42, 48)), 1.4),
      rightEyeRegion: grow(boundingBox(points68.slice(36, 42)), 1.4),
      noseRegion: boundingBox(points68.slice(27, 36)),
      landmarks68,
      points68,
      iod,
      // Station convention (docs/face-engine.md): yaw > 0 the person turns to their right,
      // pitch > 0 they look up. Human's pitch grows when looking down, hence the sign.
      yaw: toDegrees(angle.yaw),
      pitch: -toDegrees(angle.pitch),
      roll: toDegrees(angle.roll),
      leftEyeOpenness: leftOpen,
      rightEyeOpenness: rightOpen,
      mouthOpenness,
      age,
      gender,
      emotion,
      real: options.presentation ? (hf.real ?? null) : null,
      live: options.presentation ? (hf.live ?? null) : null,
      image: imageStats,
      cues,
      presentation,
      still,
      embedding,
      thumbnail,
      portrait,
    };
  }
}

/**
 * Human (its five face networks) and face-api (landmarks, recognition, age and gender, expression) loaded on
 * tfjs's WASM backend from the models folder: the runtime's pipeline, and what the networks are
 * converted from at install (native/write-networks.ts).
 */
export async function loadFaceLibraries(modelsDir: string): Promise<{ human: HumanInstance; faceapi: FaceApi }> {
  // Checked first: without them tfjs and Human only say that no backend or model could load.
  for (const file of ['tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm.wasm']) modelFile(modelsDir, 'tfjs-wasm', file);
  for (const graph of NATIVE_HUMAN_GRAPHS) modelFile(modelsDir, 'human', `${graph}.json`);
  installFileModelRouter();
  const { Human } = loadHumanModule();
  const human = new Human({
    backend: 'wasm',
    wasmPath: `${path.join(modelsDir, 'tfjs-wasm')}${path.sep}`,
    modelBasePath: fileUrlOfDir(path.join(modelsDir, 'human')),
    debug: false,
    async: true,
    warmup: 'none',
    // Human otherwise reuses results for "similar" frames: wrong for enrollment photos.
    cacheSensitivity: 0,
    skipAllowed: false,
    filter: { enabled: true, equalization: false, flip: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 10, minConfidence: 0.2, return: false },
      mesh: { enabled: true },
      attention: { enabled: false },
      iris: { enabled: true },
      description: { enabled: false },
      // The expression is face-api's network's (it ranks smiles far better: docs/face-engine.md).
      emotion: { enabled: false },
      antispoof: { enabled: true },
      liveness: { enabled: true },
      gear: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  });
  await human.load();
  const faceapi = loadFaceApiModule();
  const faceApiModels = path.join(modelsDir, 'face-api');
  await faceapi.nets.faceLandmark68Net.loadFromDisk(faceApiModels);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(faceApiModels);
  await faceapi.nets.ageGenderNet.loadFromDisk(faceApiModels);
  await faceapi.nets.faceExpressionNet.loadFromDisk(faceApiModels);
  return { human, faceapi };
}

/** face-api's expression names as the station's emotion keys (Human's labels, which the operations read). */
const EMOTION_KEYS: Record<string, string> = {
  neutral: 'neutral',
  happy: 'happy',
  sad: 'sad',
  angry: 'angry',
  fearful: 'fear',
  disgusted: 'disgust',
  surprised: 'surprise',
};

function emotionsOf(expressions: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(EMOTION_KEYS).map(([from, to]) => [to, expressions[from] ?? 0]));
}

/** The border passes: a quarter of the frame's size around it, then three fifths, each scaled to a detector's size. */
const PADDED_PASSES = [
  { border: 0.25, maxSide: 960 },
  { border: 0.6, maxSide: 720 },
];

/**
 * A sure face this wide against the frame's longer side fills the frame: the detector, trained on
 * faces with context around them, may have boxed only part of it (eval:face, tight crops). A face
 * close to a 640x480 webcam (308 px wide) stays under it and pays for no second pass.
 */
const FILLS_FRAME = 0.55;

/**
 * Whether the frame's detections call for the padded passes: no face the detector is sure of, two
 * sure faces overlapping (one face boxed twice), or a face filling the frame. Ordinary frames, a
 * face among its surroundings, never pay for them.
 */
export function needsPaddedPass(
  faces: readonly HumanFace[],
  frame: { width: number; height: number },
  minScore = DEFAULT_MIN_FACE_SCORE,
): boolean {
  const sure = faces.filter((f) => f.score >= minScore);
  if (sure.length === 0) return true;
  if (sure.some((f) => f.box[2] >= FILLS_FRAME * Math.max(frame.width, frame.height))) return true;
  return sure.some((a, i) => sure.slice(i + 1).some((b) => sameFace(a, b)));
}

const boxOf = (f: HumanFace) => ({ x: f.box[0], y: f.box[1], width: f.box[2], height: f.box[3] });

/** The area the two boxes share. */
function overlap(a: HumanFace, b: HumanFace): number {
  const [ba, bb] = [boxOf(a), boxOf(b)];
  const w = Math.min(ba.x + ba.width, bb.x + bb.width) - Math.max(ba.x, bb.x);
  const h = Math.min(ba.y + ba.height, bb.y + bb.height) - Math.max(ba.y, bb.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function iou(a: HumanFace, b: HumanFace): number {
  const inter = overlap(a, b);
  return inter / (a.box[2] * a.box[3] + b.box[2] * b.box[3] - inter);
}

/** The eyes' midpoint by the mesh (outer eye corners), where the mesh ran. */
function eyesOf(f: HumanFace): [number, number] | null {
  const [a, b] = [f.mesh[33], f.mesh[263]];
  return a && b ? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] : null;
}

/** One face boxed twice: boxes overlapping, or meshes whose eyes fall in the same place. */
function sameFace(a: HumanFace, b: HumanFace): boolean {
  if (iou(a, b) > 0.3) return true;
  const [ea, eb] = [eyesOf(a), eyesOf(b)];
  return !!ea && !!eb && Math.hypot(ea[0] - eb[0], ea[1] - eb[1]) < 0.25 * Math.min(a.box[2], b.box[2]);
}

/** Non-maximum suppression across passes: of the detections of one face, the surest; largest first. */
export function mergeDetections(faces: readonly HumanFace[]): HumanFace[] {
  const kept: HumanFace[] = [];
  for (const f of [...faces].sort((a, b) => b.score - a.score)) if (!kept.some((k) => sameFace(k, f))) kept.push(f);
  // A face inside a larger sure face is part of that head, boxed by a pass that saw too little of it.
  const whole = kept.filter((f) => !kept.some((g) => g !== f && g.box[2] > f.box[2] && insideShare(f, g) >= 0.8));
  return whole.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
}

/** The share of a's box that lies inside b's. */
function insideShare(a: HumanFace, b: HumanFace): number {
  return overlap(a, b) / (a.box[2] * a.box[3]);
}

/** The frame's mean colour, for a border that is neither black nor another face. */
function meanColour(rgb: Uint8Array): { r: number; g: number; b: number } {
  let [r, g, b] = [0, 0, 0];
  const n = rgb.length / 3;
  for (let i = 0; i < rgb.length; i += 3) {
    r += rgb[i]!;
    g += rgb[i + 1]!;
    b += rgb[i + 2]!;
  }
  return { r: Math.round(r / n), g: Math.round(g / n), b: Math.round(b / n) };
}

function rawSharp(frame: Decoded, rgb = frame.rgb, width = frame.width, height = frame.height) {
  return sharp(rgb, { raw: { width, height, channels: 3 } });
}

/**
 * The oriented frame as a JPEG (`faceImage`): the bytes received, without their personal metadata,
 * when they are already an upright sRGB JPEG of the decoded size (no second lossy encoding, and
 * no encoding work); else the decoded pixels encoded.
 */
async function frameImage(bytes: Uint8Array, frame: Decoded): Promise<Uint8Array> {
  const meta = await sharp(bytes).metadata();
  const upright = (meta.orientation ?? 1) === 1 && meta.width === frame.width && meta.height === frame.height;
  if (meta.format === 'jpeg' && upright && meta.space === 'srgb' && meta.channels === 3) {
    const stripped = withoutPersonalMetadata(bytes);
    if (stripped) return stripped;
  }
  return jpeg(frame.rgb, frame.width, frame.height, 85);
}

async function jpeg(rgb: Uint8Array, width: number, height: number, quality: number): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp(rgb, { raw: { width, height, channels: 3 } })
      .jpeg(jpegOptions(quality))
      .toBuffer(),
  );
}

/**
 * Without a second pass for optimal Huffman tables: on the portrait it costs about as much CPU as
 * the encoding itself, for a file a few percent smaller, and the CPU is what a busy station's
 * other worker lacks (docs/face-engine.md, "Work beside the workers").
 */
const jpegOptions = (quality: number) => ({ quality, optimiseCoding: false });

/**
 * Laplacian variance of the face's luma resampled to 128 px wide, so the measure does not depend on
 * distance. The luma is taken here from the resampled colour, not by libvips: its greyscale goes
 * through linear light in floats and cost as much CPU as the resampling.
 */
async function faceSharpness(frame: Decoded, box: Box): Promise<number> {
  const b = clampBox(box, frame.width, frame.height);
  if (b.width < 8 || b.height < 8) return 0;
  const { data, info } = await rawSharp(frame)
    .extract({ left: b.x, top: b.y, width: b.width, height: b.height })
    .resize({ width: 128 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const plane = lumaOf(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), info.width, info.height);
  return laplacianVariance(plane, { x: 0, y: 0, width: plane.width, height: plane.height });
}

async function thumbnailOf(frame: Decoded, box: Box, width: number): Promise<Uint8Array> {
  const b = clampBox(grow(box, 1.3), frame.width, frame.height);
  return new Uint8Array(
    await rawSharp(frame)
      .extract({ left: b.x, top: b.y, width: b.width, height: b.height })
      .resize({ width })
      .jpeg(jpegOptions(80))
      .toBuffer(),
  );
}

/** The ICAO token portrait: eyes level, 4 IOD wide, 3:4, JPEG. */
async function portraitOf(frame: Decoded, rightEye: Point, leftEye: Point, scaleH: number): Promise<Uint8Array> {
  const { box, angle } = tokenPortraitBox(rightEye, leftEye, scaleH);
  const outW = 360;
  const outH = 480;
  // Outside the frame: a neutral grey, as a photographer's backdrop.
  const rgb = warpPerspective(frame.rgb, frame.width, frame.height, rotatedBoxToSource(box, angle, outW, outH), outW, outH, 200);
  return jpeg(rgb, outW, outH, 88);
}

/**
 * The face's networks besides recognition (Human's detector, mesh, iris, antispoof and liveness;
 * face-api's 68 landmarks, age and gender, and expression) natively when the descriptors run natively
 * (so onnxruntime loaded), on WASM otherwise; `auto` keeps WASM if a graph cannot be built, and
 * says why.
 */
function analysisOnRuntime(
  modelsDir: string,
  human: HumanInstance,
  faceapi: FaceApi,
  setting: NetworkRuntimeSetting,
  descriptors: DescriptorNets,
): { runtime: NetworkRuntime; fallbackReason: string | null } {
  if (setting === 'wasm') return { runtime: 'wasm', fallbackReason: null };
  if (descriptors.runtime === 'wasm') return { runtime: 'wasm', fallbackReason: descriptors.fallbackReason };
  try {
    // Every graph is built before any is installed: a failure leaves them all on WASM, as reported.
    const installs = [
      humanGraphsOnNative(human.models.models, (key) => readNetworkFile(modelsDir, `human-${key}`)),
      faceApiNetsOnNative(faceapi, (name) => readNetworkFile(modelsDir, name)),
    ];
    for (const install of installs) install();
    return { runtime: 'native', fallbackReason: null };
  } catch (error) {
    if (setting === 'native') throw error;
    return { runtime: 'wasm', fallbackReason: (error as Error).message };
  }
}
