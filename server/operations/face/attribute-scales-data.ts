// Written by `npm run fit:attributes` from the tuning half of bench/labels/attributes-own.csv: do not edit.
// Each scale's weights: intercept, then one per feature (attribute-scales.ts). Faces fitted on: {"glasses":{"positives":14,"negatives":79},"beard":{"positives":8,"negatives":85},"mustache":{"positives":8,"negatives":85},"openMouth":{"positives":46,"negatives":47},"smile":{"positives":52,"negatives":41}}.
export const FITTED_SCALES = {
  glasses: [0.4388, 0.87],
  beard: [-2.2279, 1.1356],
  mustache: [-2.2297, 1.0969],
  openMouth: [-1.7672, 18.5053],
  smile: [0.3498, 0.5197],
} as const;

/** Beyond every neutral face of the tuning half (bench/fit-attributes.ts). */
export const EXPRESSION_THRESHOLDS = { browRaised: 0.444, browLowered: 0.255, eyesNarrowed: 0.239 } as const;
