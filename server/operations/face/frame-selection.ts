import { chooseMajorFace, assessQuality, type QualityReport, type FrameAnalysis, type MajorFace } from '../../engines/index.js';
import { confidenceOf, thresholdForFmr, type ImpostorModel, cosine } from '../../matching/index.js';
import { whyFaceUnusable } from './face-usable.js';

export interface UsableFrame {
  index: number;
  analysis: FrameAnalysis;
  face: MajorFace;
  quality: QualityReport;
}

export type ProbeSelection =
  | {
      ok: true;
      best: UsableFrame;
      /** The frames that agree on who is shown: what matching and enrollment use. */
      frames: UsableFrame[];
      /** Every frame with the face, outliers included: the motion liveness looks at. */
      all: UsableFrame[];
    }
  | { ok: false; status: 'FACE_NOT_DETECTED' | 'TEMPLATE_MULTIPLE_FACES' | 'INTRATEMPLATE_FACE_MISMATCH'; motivo: string };

/**
 * Frames of one capture must show one person. A live sequence turns the head and passes through
 * dark or motion-blurred frames on purpose (liveness wants motion), and such a frame can score like
 * a stranger (seen on a loaded station with the previous descriptor, in the refusals' `motivo`: a
 * dark frontal frame against a 20° turn at confidence 33.6, a ghosted frame against the sharpest at
 * 21.8; the fixtures video/slow-capture-* and blurred-capture-*). So the frames vote: the frame
 * that agrees with the most others (FMR 1e-2 per pair) anchors the identity, the frames that agree
 * with it are used, and the others (a frame of someone else, too) are set aside. Without a strict majority for one person the template is
 * refused: two photos of two people never enroll either.
 */
export const INTRATEMPLATE_MIN_CONFIDENCE = thresholdForFmr(1e-2);

const byQuality = (a: UsableFrame, b: UsableFrame): number => b.quality.score - a.quality.score;

/**
 * The frames of a template an operation works on: each must show one clearly dominant face
 * (or none), most faces must be the same person, and the best by quality among them leads.
 */
export function selectFrames(
  analyses: readonly FrameAnalysis[],
  options: { onlyMajor: boolean; impostors: ImpostorModel; minFaceScore?: number },
): ProbeSelection {
  const frames: UsableFrame[] = [];
  let unusable: string | null = null;
  for (const [index, analysis] of analyses.entries()) {
    const decision = chooseMajorFace(analysis.faces, analysis, options.onlyMajor, options.minFaceScore);
    if (decision.kind === 'ambiguous') {
      return {
        ok: false,
        status: 'TEMPLATE_MULTIPLE_FACES',
        motivo: `la imagen ${index + 1} muestra ${decision.count} rostros de tamaño parecido; no se sabe cuál es la persona`,
      };
    }
    if (decision.kind === 'none' || !analysis.major) continue;
    // A half face or a speck is no face to describe: set aside, and named if nothing else is left.
    const why = whyFaceUnusable(analysis.major, analysis);
    if (why) unusable ??= `la imagen ${index + 1}: ${why}`;
    else frames.push({ index, analysis, face: analysis.major, quality: assessQuality(analysis.major) });
  }
  if (frames.length === 0)
    return {
      ok: false,
      status: 'FACE_NOT_DETECTED',
      motivo: unusable ?? 'no se encontró un rostro en ninguna imagen del template',
    };

  const embedded = frames.filter((f) => f.face.embedding);
  const confidence = embedded.map((a) =>
    embedded.map((b) => (a === b ? 100 : confidenceOf(cosine(a.face.embedding!, b.face.embedding!), options.impostors))),
  );
  const agreeing = embedded.map((_, i) => embedded.filter((_, j) => confidence[i]![j]! >= INTRATEMPLATE_MIN_CONFIDENCE));
  let anchor = -1;
  for (let i = 0; i < embedded.length; i++) {
    const [mine, theirs] = [agreeing[i]!.length, anchor < 0 ? -1 : agreeing[anchor]!.length];
    if (mine > theirs || (mine === theirs && byQuality(embedded[i]!, embedded[anchor]!) < 0)) anchor = i;
  }
  if (anchor >= 0) {
    const consensus = agreeing[anchor]!;
    if (consensus.length * 2 <= embedded.length) {
      const worst = embedded.reduce((w, _, j) => (confidence[anchor]![j]! < confidence[anchor]![w]! ? j : w), anchor);
      const [a, b] = [embedded[anchor]!.index, embedded[worst]!.index].sort((x, y) => x - y);
      return {
        ok: false,
        status: 'INTRATEMPLATE_FACE_MISMATCH',
        motivo: `las imágenes ${a! + 1} y ${b! + 1} no muestran a la misma persona (confianza ${confidence[anchor]![worst]})`,
      };
    }
    const used = frames.filter((f) => !f.face.embedding || consensus.includes(f));
    return { ok: true, best: [...consensus].sort(byQuality)[0]!, frames: used, all: frames };
  }
  return { ok: true, best: [...frames].sort(byQuality)[0]!, frames, all: frames };
}

/** A quality score and an eye distance a frame must reach to be used (enrollment's samples, identification's probe). */
export interface FrameGates {
  minQuality: number;
  minIod: number;
}

/**
 * The frames that pass the gates and carry an embedding, best quality first; or, when none does,
 * why, naming the best frame's values against each gate (the motivo of LOW_QUALITY).
 */
export function framesPassing(
  selection: Extract<ProbeSelection, { ok: true }>,
  gates: FrameGates,
): { ok: true; frames: UsableFrame[] } | { ok: false; quality: number; shortfall: string } {
  const frames = selection.frames
    .filter((f) => f.quality.score >= gates.minQuality && f.face.iod >= gates.minIod && f.face.embedding)
    .sort(byQuality);
  if (frames.length > 0) return { ok: true, frames };
  const { quality, face } = selection.best;
  return {
    ok: false,
    quality: quality.score,
    shortfall: `mejor: calidad ${quality.score} de ${gates.minQuality}, distancia entre ojos ${Math.round(face.iod)} px de ${gates.minIod}; falla: ${quality.failed.join(', ') || '-'}`,
  };
}
