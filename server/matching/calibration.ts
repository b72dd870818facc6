/**
 * Raw similarity to calibrated confidence and false-accept probability.
 *
 * The impostor cosine scores of the descriptor are modelled as a normal distribution (its
 * parameters measured by `npm run eval:face` on LFW and the deepface pairs, data the product
 * may use; recalibrate on your own people with `npm run eval:face -- --dataset DIR`).
 * - faP(s): probability that an impostor scores at least s (the normal's upper tail).
 * - confidence = 12 x -log10(faP), capped at 100: 36 is FMR 1e-3, 48 is 1e-4, 60 is 1e-5. The
 *   scale is the one biometric vendors use for matching thresholds, so operators' habits carry over.
 */
export interface ImpostorModel {
  mean: number;
  std: number;
  /** Where the parameters came from. */
  source: string;
}

export const CONFIDENCE_PER_DECADE = 12;

export function falseAcceptProbability(score: number, model: ImpostorModel): number {
  const z = (score - model.mean) / model.std;
  return Math.max(1e-300, 0.5 * erfc(z / Math.SQRT2));
}

export function confidenceOf(score: number, model: ImpostorModel): number {
  const c = CONFIDENCE_PER_DECADE * -Math.log10(falseAcceptProbability(score, model));
  return Math.round(Math.min(100, Math.max(0, c)) * 10) / 10;
}

/** Confidence threshold for a false-match rate per comparison. */
export function thresholdForFmr(fmr: number): number {
  return CONFIDENCE_PER_DECADE * -Math.log10(fmr);
}

/**
 * Open-set identification: with N comparisons the chance that some stranger passes grows about
 * N-fold, so the per-comparison rate must be `fpir / N` to keep strangers accepted at `fpir`.
 */
export function identificationThreshold(comparisons: number, fpir: number, floor: number): number {
  return Math.max(floor, thresholdForFmr(fpir / Math.max(1, comparisons)));
}

/** Complementary error function (Numerical Recipes' erfcc, relative error under 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
