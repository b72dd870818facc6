import { DEFAULT_MIN_FACE_SCORE, type DetectedFace, faceCandidates, largestFace } from '../../server/engines/index.js';

export interface OtherDetection {
  file: string;
  /** The detector's confidence (Human's mesh score, 0..1). */
  score: number;
  width: number;
  /** The face described in the same photo (the largest candidate): its score and width. */
  described_score: number;
  described_width: number;
  /** Dropped as a doubted box drawn around a sure face (`faceCandidates`). */
  dropped: boolean;
}

export interface DetectionCensus {
  /** The score of a sure face (the vendor's `minConfidence` default, as a fraction). */
  sure_score: number;
  photos_with_faces: number;
  /** Photos with a single detection, and how many of those the detector scored 1 (to its 0.01). */
  one_detection: number;
  one_detection_scored_1: number;
  one_detection_lowest: number;
  /** Every detection besides the one described, in the photos where one is sure. */
  others: OtherDetection[];
}

/**
 * What the detector found in each photo, as `eval:face` chooses among it: how sure it is of lone
 * faces, and the other boxes beside the face described, sure or doubted, kept or dropped
 * (docs/face-engine.md, "Which detections are faces").
 */
export function detectionCensus(
  photos: readonly { file: string; faces: readonly DetectedFace[] }[],
  minScore = DEFAULT_MIN_FACE_SCORE,
): DetectionCensus {
  const lone = photos.filter((p) => p.faces.length === 1).map((p) => p.faces[0]!.score);
  const others: OtherDetection[] = [];
  for (const { file, faces } of photos) {
    const described = largestFace(faces, minScore);
    if (described === null || faces.length < 2 || !faces.some((f) => f.score >= minScore)) continue;
    const candidates = new Set(faceCandidates(faces, minScore));
    faces.forEach((f, i) => {
      if (i === described) return;
      others.push({
        file,
        score: f.score,
        width: Math.round(f.box.width),
        described_score: faces[described]!.score,
        described_width: Math.round(faces[described]!.box.width),
        dropped: !candidates.has(i),
      });
    });
  }
  return {
    sure_score: minScore,
    photos_with_faces: photos.filter((p) => p.faces.length > 0).length,
    one_detection: lone.length,
    one_detection_scored_1: lone.filter((s) => s >= 0.995).length,
    one_detection_lowest: lone.length ? Math.min(...lone) : NaN,
    others: others.sort((a, b) => a.score - b.score),
  };
}
