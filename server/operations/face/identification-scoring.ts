import { type ImpostorModel, centredImpostors, centringShift, centringWeight, galleryCentre } from '../../matching/index.js';
import type { SearchIndex } from '../../search/index.js';

/**
 * How identification (1:N, duplicate search) scores, where it differs from verification: what it
 * compares of a stored embedding or a probe (the index holds the same view of the gallery), how
 * much of the probe's similarity to the gallery's mean sample comes off its scores, and the
 * impostor distributions of those scores (engines/face/fused-descriptor.ts, matching/gallery-centre.ts).
 */
export interface IdentificationScoring {
  view(embedding: Float32Array): Float32Array;
  /** CENTRING_SHARE as the station ships it; 0 scores the plain cosine. */
  centring: number;
  /** Impostors of the plain cosine. */
  impostors: ImpostorModel;
  /** Impostors of the cosine centred in full; a gallery centred in part is calibrated in between. */
  centredImpostors: ImpostorModel;
}

/** Identification on the gallery of the moment: what comes off a probe's scores, and their calibration. */
export interface GalleryScoring {
  /** Taken off every score of `probe` (an identification view): the ranking stays. */
  shift(probe: Float32Array): number;
  impostors: ImpostorModel;
}

export function identificationOnGallery(
  scoring: IdentificationScoring,
  index: Pick<SearchIndex, 'sampleSum' | 'sampleCount'>,
): GalleryScoring {
  if (scoring.centring === 0) return { shift: () => 0, impostors: scoring.impostors };
  const count = index.sampleCount;
  const centre = galleryCentre(index.sampleSum(), count);
  return {
    shift: (probe) => centringShift(probe, centre, scoring.centring),
    impostors: centredImpostors(scoring.impostors, scoring.centredImpostors, centringWeight(count)),
  };
}
