import type { AnalyzeOptions } from './types.js';

/** What matching needs of a frame: the face, its landmarks and its embedding; nothing else is computed. */
export const MATCHING_ANALYSIS: AnalyzeOptions = {
  embedding: true,
  ageGender: false,
  emotion: false,
  presentation: false,
  traits: false,
  thumbnailWidth: 0,
  portrait: false,
  scaleH: 0,
  frameJpeg: false,
  clahe: { enabled: true, minClip: 4, maxClip: 10 },
};

/** Every model and image a request can ask for. */
export const FULL_ANALYSIS: AnalyzeOptions = {
  embedding: true,
  ageGender: true,
  emotion: true,
  presentation: true,
  traits: true,
  thumbnailWidth: 128,
  portrait: true,
  scaleH: 0,
  frameJpeg: true,
  clahe: { enabled: true, minClip: 4, maxClip: 10 },
};
