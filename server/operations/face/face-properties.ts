import type { z } from 'zod';
import type { ExtractParameters, facePropertiesSchema } from '../../../common/api/face-schemas.js';
import {
  type QualityReport,
  expressionGeometry,
  type Box,
  type FrameAnalysis,
  type MajorFace,
  type Point,
} from '../../engines/index.js';
import { mouthOpenProbability, smileProbability, traitProbability } from './attribute-scales.js';
import { EXPRESSION_THRESHOLDS } from './attribute-scales-data.js';

type FaceProperties = z.infer<typeof facePropertiesSchema>;

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
const pct = (x: number): number => Math.round(clamp01(x) * 100);
const r1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * Eye openness 0..1 from the lid-gap ratio: 0.05 or less is shut, 0.55 wide open. An eye is
 * closed when its openness is under `blinkSensibility` (vendor default 0.3, a ratio of 0.2).
 */
export const eyeOpenness = (ratio: number): number => clamp01((ratio - 0.05) / 0.5);

/** Mouth openness 0..1 from the inner-lip gap over mouth width. */
export const mouthOpenness = (ratio: number): number => clamp01((ratio - 0.05) / 0.4);

const EMOTION_NAMES: Record<string, keyof NonNullable<FaceProperties['emotion']>> = {
  angry: 'anger',
  disgust: 'disgust',
  fear: 'fear',
  happy: 'happiness',
  neutral: 'neutral',
  sad: 'sadness',
  surprise: 'surprise',
};

function point(p: Point, num: number, confidence: number) {
  return { confidence, num, x: r1(p[0]), y: r1(p[1]) };
}

/**
 * The net's probability under which no sex is named (NOT_DETECTED, the vendor's value): three to
 * one, by reasoning. The net's probability is about calibrated (`eval:attributes` prints the
 * share left unnamed and the errors among the named): a guess less sure than that is wrong more
 * than one time in four.
 */
export const GENDER_MIN_PROBABILITY = 0.75;

/** The sex reported: the net's when it is sure enough, with its probability; else NOT_DETECTED with the likelier sex's. */
export function genderOf(estimate: NonNullable<MajorFace['gender']>): NonNullable<FaceProperties['gender']> {
  return {
    type: estimate.score >= GENDER_MIN_PROBABILITY ? estimate.type : 'NOT_DETECTED',
    confidence: pct(estimate.score),
  };
}

function region(b: Box, confidence: number) {
  return { confidence, x: r1(b.x), y: r1(b.y), width: r1(b.width), height: r1(b.height) };
}

/**
 * The gender net's probability of a man, 1 where it did not run: facial-hair cues are evidence of
 * a beard on a face read as a man's, so a woman's shadowed chin or framing hair is not a beard.
 * A woman's facial hair is under-reported by this prior (docs/face-engine.md).
 */
export function facialHairPrior(face: Pick<MajorFace, 'gender'>): number {
  return face.gender ? (face.gender.type === 'MALE' ? face.gender.score : 1 - face.gender.score) : 1;
}

export function traitsOf(
  face: MajorFace,
  params: Pick<ExtractParameters, 'blinkSensibility' | 'facePoseSensibility'>,
): NonNullable<FaceProperties['traits']> {
  const pose = params.facePoseSensibility;
  const leftClosed = eyeOpenness(face.leftEyeOpenness) < params.blinkSensibility;
  const rightClosed = eyeOpenness(face.rightEyeOpenness) < params.blinkSensibility;
  // The station's convention (docs/face-engine.md): yaw < 0 the person looks to their left,
  // yaw > 0 to their right; pitch > 0 upwards.
  const lookingLeft = face.yaw <= pose.lookingLeftYawAngle;
  const lookingRight = face.yaw >= pose.lookingRightYawAngle;
  const lookingUpward = face.pitch >= pose.lookingUpwardsPitchAngle;
  const lookingDownward = face.pitch <= pose.lookingDownwardsPitchAngle;
  // A face too small, turned, dark or half seen gives no reading of the traits measured from its
  // regions: null, and why, rather than a confident 0.
  const unreadable = faceUnreadable(face);
  const cues = unreadable ? null : face.cues;
  const measured = (value: (c: NonNullable<MajorFace['cues']>) => number) => (cues ? pct(value(cues)) : null);
  const hairPrior = facialHairPrior(face);
  return {
    ambosOjosCerrados: leftClosed && rightClosed,
    leftEyeClosed: leftClosed,
    rightEyeClosed: rightClosed,
    lookingDownward,
    lookingFront: Math.abs(face.yaw) <= pose.lookingFront && Math.abs(face.pitch) <= pose.lookingFront,
    lookingLeft,
    lookingRight,
    lookingUpward,
    beard: measured((c) => traitProbability('beard', c.beard * hairPrior)),
    darkGlasses: measured((c) => c.darkGlasses),
    glasses: measured((c) => traitProbability('glasses', Math.max(c.glasses, c.darkGlasses))),
    hat: measured((c) => c.hat),
    mustache: measured((c) => traitProbability('mustache', c.mustache * hairPrior)),
    openMouth: unreadable ? null : pct(mouthOpenProbability(face.mouthOpenness)),
    ...(unreadable ? { motivo: `${unreadable}: los rasgos no se leen` } : {}),
  };
}

/** Where a face stops giving a reading of its expression, emotion and region traits (faceUnreadable). */
const READING_MIN_IOD = 20;
const READING_MAX_YAW = 45;
const READING_MAX_PITCH = 35;
const READING_MIN_BRIGHTNESS = 0.12;
const READING_MIN_FACE_SCORE = 0.6;

/**
 * Why the face gives no reading of what it shows (expression, emotion, the traits measured from
 * its regions), or null when it does. Each bar is where the mesh's mouth and brows, and the
 * regions placed by them, stop meaning what they measure, by reasoning (docs/face-engine.md).
 */
export function faceUnreadable(face: MajorFace): string | null {
  if (face.points68.every((p, i) => p[0] === face.landmarks68[i]?.[0] && p[1] === face.landmarks68[i]?.[1])) {
    return 'sin malla facial: la boca y las cejas no se midieron';
  }
  // Under 20 px between the eyes the mouth is about 20 px wide: a corner raised a twentieth of
  // its width moves one pixel, the mesh's own error.
  if (face.iod < READING_MIN_IOD) {
    return `rostro chico (${Math.round(face.iod)} px entre ojos, menos de ${READING_MIN_IOD})`;
  }
  // Turned past 45° the far half of the mouth and brows is hidden: its points are guessed.
  if (Math.abs(face.yaw) > READING_MAX_YAW || Math.abs(face.pitch) > READING_MAX_PITCH) {
    return `cabeza girada (yaw ${Math.round(face.yaw)}°, pitch ${Math.round(face.pitch)}°; más de ${READING_MAX_YAW}° / ${READING_MAX_PITCH}°)`;
  }
  // The extraction's own illumination bar: in the dark the nets see noise.
  if (face.image.brightness < READING_MIN_BRIGHTNESS) {
    return `rostro oscuro (brillo ${Math.round(face.image.brightness * 100)} %, menos de ${READING_MIN_BRIGHTNESS * 100} %)`;
  }
  // The detector scores a face it sees only in part lower (docs/face-engine.md, "Which detections are faces").
  if (face.score < READING_MIN_FACE_SCORE) {
    return `rostro visto solo en parte (confianza del detector ${Math.round(face.score * 100)})`;
  }
  return null;
}

/** Why the face gives no reading of its expression, or null when it does. */
export function expressionUnreadable(face: MajorFace): string | null {
  if (!face.emotion) return 'la red de emoción no corrió';
  const why = faceUnreadable(face);
  return why && `${why}: la expresión no se lee`;
}

/**
 * The vendor's expression types, each by its own evidence: a smile by its probability (the
 * expression net, attribute-scales.ts), the gaze by the pose, a squint by the
 * lids, a frown and raised brows by the brows' height against the neutral faces' spread or the
 * net; NEUTRAL otherwise. `confidence` is the probability of a smile for SMILE*, of no smile for
 * the others; UNKNOWN (confidence 0, `motivo`) only where the face gives no reading.
 */
export function expressionOf(
  face: MajorFace,
  traits: NonNullable<FaceProperties['traits']>,
): NonNullable<FaceProperties['expression']> {
  const unreadable = expressionUnreadable(face);
  if (unreadable) return { type: 'UNKNOWN', confidence: 0, motivo: unreadable };
  const smile = smileProbability(face);
  if (smile >= 0.5) {
    return { type: mouthOpenProbability(face.mouthOpenness) >= 0.5 ? 'SMILE_OPENED_JAW' : 'SMILE', confidence: pct(smile) };
  }
  const confidence = pct(1 - smile);
  if (traits.lookingLeft || traits.lookingRight || traits.lookingUpward || traits.lookingDownward) {
    return { type: 'EYES_AWAY', confidence };
  }
  const e = face.emotion!;
  const g = expressionGeometry(face.points68);
  const eyes = (face.leftEyeOpenness + face.rightEyeOpenness) / 2;
  if (!traits.ambosOjosCerrados && eyes < EXPRESSION_THRESHOLDS.eyesNarrowed) return { type: 'SQUINT', confidence };
  if (g.browHeight < EXPRESSION_THRESHOLDS.browLowered || Math.max(e.angry ?? 0, e.disgust ?? 0) >= 0.5) {
    return { type: 'FROWNING', confidence };
  }
  if (g.browHeight > EXPRESSION_THRESHOLDS.browRaised || (e.surprise ?? 0) >= 0.5) {
    return { type: 'RAISED_BROWS', confidence };
  }
  return { type: 'NEUTRAL', confidence };
}

/**
 * The emotion scale: `happiness` is the probability of a visible smile (50: as likely as not,
 * the same reading as SMILE*); the other six share what is left in the expression net's proportions.
 * Null where the face gives no reading (expressionUnreadable).
 */
export function emotionOf(face: MajorFace): FaceProperties['emotion'] {
  if (!face.emotion || expressionUnreadable(face)) return null;
  const smile = smileProbability(face);
  const others = Object.entries(face.emotion).filter(([name]) => name !== 'happy');
  const rest = others.reduce((s, [, v]) => s + v, 0);
  const share = (name: string) =>
    name === 'happy'
      ? smile
      : rest > 1e-6
        ? ((face.emotion![name] ?? 0) / rest) * (1 - smile)
        : name === 'neutral'
          ? 1 - smile
          : 0;
  return Object.fromEntries(Object.entries(EMOTION_NAMES).map(([from, to]) => [to, pct(share(from))])) as NonNullable<
    FaceProperties['emotion']
  >;
}

/** Section 2.4's `properties`, from one analyzed face and the request's parameters. */
export function facePropertiesOf(
  face: MajorFace,
  analysis: FrameAnalysis,
  quality: QualityReport,
  params: ExtractParameters,
): FaceProperties {
  const confidence = pct(face.score);
  const traits = traitsOf(face, params);
  const emotion = params.detectEmotion ? emotionOf(face) : null;
  return {
    age: params.detectAge && face.age !== null ? Math.round(face.age) : null,
    clahe: analysis.clahe,
    confidence,
    emotion,
    expression: params.detectExpression ? expressionOf(face, traits) : null,
    gender: params.detectGender && face.gender ? genderOf(face.gender) : null,
    leftEyePoint: point(face.leftEye, 0, confidence),
    rightEyePoint: point(face.rightEye, 1, confidence),
    nosePoint: point(face.noseTip, 2, confidence),
    leftEyeRegion: region(face.leftEyeRegion, confidence),
    rightEyeRegion: region(face.rightEyeRegion, confidence),
    noseRegion: region(face.noseRegion, confidence),
    position: {
      ...region(face.box, confidence),
      yaw: r1(face.yaw),
      pitch: r1(face.pitch),
      roll: r1(face.roll),
      points: face.points68.map((p, i) => point(p, i, confidence)),
    },
    quality: { score: quality.score, failed: quality.failed },
    thumbnail: face.thumbnail ? Buffer.from(face.thumbnail).toString('base64') : '',
    traits: params.detectTraitsAndActions ? traits : null,
  };
}

export type ExtractGate =
  | { status: 'OK' }
  | { status: 'FACE_NOT_DETECTED' | 'FACE_TOO_SMALL' | 'BAD_POSE' | 'BAD_ILLUMINATION' | 'LOW_QUALITY'; motivo: string };

/** The extraction's gates, in the order an operator would fix them. */
export function extractGate(face: MajorFace, quality: QualityReport, params: ExtractParameters): ExtractGate {
  const confidence = pct(face.score);
  if (confidence < params.minConfidence) {
    return {
      status: 'FACE_NOT_DETECTED',
      motivo: `confianza del detector ${confidence} menor que minConfidence ${params.minConfidence}`,
    };
  }
  if (face.iod < params.minIOD) {
    return {
      status: 'FACE_TOO_SMALL',
      motivo: `distancia entre ojos ${Math.round(face.iod)} px menor que minIOD ${params.minIOD}: acerque a la persona a la cámara`,
    };
  }
  if (Math.abs(face.roll) > params.maxRoll || Math.abs(face.yaw) > params.maxYaw) {
    return {
      status: 'BAD_POSE',
      motivo: `cabeza girada (yaw ${Math.round(face.yaw)}°, roll ${Math.round(face.roll)}°) fuera de maxYaw ${params.maxYaw}° / maxRoll ${params.maxRoll}°`,
    };
  }
  const { brightness, clipped } = face.image;
  if (brightness < 0.12 || brightness > 0.9 || clipped > 0.4) {
    return {
      status: 'BAD_ILLUMINATION',
      motivo: `iluminación del rostro inadecuada (brillo ${Math.round(brightness * 100)} %, ${Math.round(clipped * 100)} % de píxeles saturados)`,
    };
  }
  if (quality.score < params.minQuality) {
    return {
      status: 'LOW_QUALITY',
      motivo: `calidad ${quality.score} menor que minQuality ${params.minQuality}; falla: ${quality.failed.join(', ') || 'ninguna en particular'}`,
    };
  }
  return { status: 'OK' };
}
