import type { MajorFace } from '../../engines/index.js';

/** A logistic combination of standardised cues: the attack probability of one still. */
export interface StillModel {
  features: string[];
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

/**
 * Fitted by `npm run eval:pad` on its tuning split only (bench/results/eval-pad.json,
 * single_stills.model; a test keeps the two equal): which cues one still is judged on, and how.
 */
export const STILL_MODEL: StillModel = {
  features: ['framing', 'frameSaturationP95', 'detailRatio', 'moirePeak'],
  mean: [0.467441, 0.640237, 0.429979, 2.113494],
  scale: [0.441546, 0.193576, 0.066355, 0.350265],
  weights: [1.420204, -0.334733, -0.441519, -0.419094],
  bias: 0.04418,
};

/** The attack probability (0..1) from which a still is refused: BPCER 10 % on the tuning split. */
export const STILL_THRESHOLD = 0.466239;

/**
 * What the operating point did on the validation split, which no choice looked at
 * (single_stills.splits.validation): the share of attacks it accepted and of live stills it refused.
 */
export const STILL_VALIDATION = { auc: 0.853, apcer: 0.1935, bpcer: 0.299, attacks: 398, live: 398 };

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The model's attack probability for one still's cues (a cue not measured counts as its tuning mean). */
export function stillScore(model: StillModel, cues: Readonly<Record<string, number>>): number {
  let z = model.bias;
  model.features.forEach((f, i) => {
    const v = cues[f];
    z += model.weights[i]! * (v === undefined || !Number.isFinite(v) ? 0 : (v - model.mean[i]!) / model.scale[i]!);
  });
  return sigmoid(z);
}

/** Every cue a still is judged on, by the names the model uses: the engine's and the pixel cues. */
export function stillCueValues(face: MajorFace): Record<string, number> {
  return {
    framing: face.presentation?.bezel ?? 0,
    ...(face.real !== null ? { antispoofModel: 1 - face.real } : {}),
    ...(face.live !== null ? { livenessModel: 1 - face.live } : {}),
    ...(face.still ?? {}),
  };
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/** What a judged still's answer can claim: the validation figures of the point it was decided at. */
export function judgedStillMotivo(
  status: 'IS_SPOOF_CHECK_CONFIDENCE' | 'NO_SPOOF_CHECK_CONFIDENCE' | 'TEMPLATE_WITHOUT_VIDEO',
): string {
  const v = STILL_VALIDATION;
  const measured = `en la validación (${v.attacks} ataques, ${v.live} vivos) este punto aceptó el ${pct(v.apcer)} de los ataques (APCER) y rechazó el ${pct(v.bpcer)} de los vivos (BPCER), AUC ${v.auc}`;
  if (status === 'TEMPLATE_WITHOUT_VIDEO')
    return `una sola imagen juzgada: ${measured}; esa cifra no permite certificarla como persona viva: capture una secuencia de cuadros`;
  return `una sola imagen juzgada por sus indicios, sin parpadeo ni movimiento: ${measured}`;
}
