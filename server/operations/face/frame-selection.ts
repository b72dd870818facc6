import { chooseMajorFace } from '../../engines/face/analysis/major-face.js';
import { assessQuality, type QualityReport } from '../../engines/face/analysis/quality.js';
import type { FrameAnalysis, MajorFace } from '../../engines/face/types.js';
import { confidenceOf, thresholdForFmr, type ImpostorModel } from '../../matching/calibration.js';
import { cosine } from '../../matching/similarity.js';

export interface UsableFrame {
  index: number;
  analysis: FrameAnalysis;
  face: MajorFace;
  quality: QualityReport;
}

export type ProbeSelection =
  | { ok: true; best: UsableFrame; frames: UsableFrame[] }
  | { ok: false; status: 'FACE_NOT_DETECTED' | 'TEMPLATE_MULTIPLE_FACES' | 'INTRATEMPLATE_FACE_MISMATCH'; motivo: string };

/** Frames of one capture must show one person: a pair under this (FMR 1e-3) is a mismatch. */
export const INTRATEMPLATE_MIN_CONFIDENCE = thresholdForFmr(1e-3);

/**
 * The frames of a template an operation works on: each must show one clearly dominant face
 * (or none), all faces must be the same person, and the best by quality leads.
 */
export function selectFrames(
  analyses: readonly FrameAnalysis[],
  options: { onlyMajor: boolean; impostors: ImpostorModel },
): ProbeSelection {
  const frames: UsableFrame[] = [];
  for (const [index, analysis] of analyses.entries()) {
    const decision = chooseMajorFace(analysis.faces, analysis, options.onlyMajor);
    if (decision.kind === 'ambiguous') {
      return {
        ok: false,
        status: 'TEMPLATE_MULTIPLE_FACES',
        motivo: `la imagen ${index + 1} muestra ${decision.count} rostros de tamaño parecido; no se sabe cuál es la persona`,
      };
    }
    if (decision.kind !== 'none' && analysis.major)
      frames.push({ index, analysis, face: analysis.major, quality: assessQuality(analysis.major) });
  }
  if (frames.length === 0)
    return { ok: false, status: 'FACE_NOT_DETECTED', motivo: 'no se encontró un rostro en ninguna imagen del template' };
  const withEmbedding = frames.filter((f) => f.face.embedding);
  for (let i = 0; i < withEmbedding.length; i++) {
    for (let j = i + 1; j < withEmbedding.length; j++) {
      const a = withEmbedding[i]!;
      const b = withEmbedding[j]!;
      const confidence = confidenceOf(cosine(a.face.embedding!, b.face.embedding!), options.impostors);
      if (confidence < INTRATEMPLATE_MIN_CONFIDENCE) {
        return {
          ok: false,
          status: 'INTRATEMPLATE_FACE_MISMATCH',
          motivo: `las imágenes ${a.index + 1} y ${b.index + 1} no muestran a la misma persona (confianza ${confidence})`,
        };
      }
    }
  }
  const best = [...frames].sort((a, b) => b.quality.score - a.quality.score)[0]!;
  return { ok: true, best, frames };
}
