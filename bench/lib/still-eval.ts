import type { FaceEngine } from '../../server/engines/index.js';
import { decodeRgb } from '../../server/imaging/index.js';
import { ANALYZE_FOR_EVAL } from './engine.js';
import { printTable } from './metrics.js';
import { stillCases, type StillCase } from './pad-stills.js';
import { candidateCues } from './still-cue-candidates.js';
import { aucOf, fitLogistic, ratesAt, selectFeatures, stillScore, thresholdAtBpcer, type StillModel } from './still-fit.js';

export interface MeasuredStill {
  name: string;
  split: StillCase['split'];
  source: StillCase['source'];
  kind: StillCase['kind'];
  /** Whether the engine found a face (a still without one never reaches the judgement). */
  face: boolean;
  cues: Record<string, number>;
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

/** Every still's cues: the engine's (framing, Human's two models) and the candidates measured on its pixels. */
export async function measureStills(engine: FaceEngine): Promise<MeasuredStill[]> {
  const cases = stillCases();
  const out: MeasuredStill[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i]!;
      const bytes = await c.image();
      const analysis = await engine.analyzeImage(bytes, { ...ANALYZE_FOR_EVAL, presentation: true, embedding: false });
      const face = analysis.major;
      const base = { name: c.name, split: c.split, source: c.source, kind: c.kind };
      if (!face) {
        out[i] = { ...base, face: false, cues: {} };
        continue;
      }
      const img = await decodeRgb(bytes);
      const cues: Record<string, number> = {
        framing: face.presentation?.bezel ?? 0,
        antispoofModel: 1 - (face.real ?? 0.5),
        livenessModel: 1 - (face.live ?? 0.5),
        ...candidateCues(img, face.landmarks68),
      };
      out[i] = { ...base, face: true, cues: Object.fromEntries(Object.entries(cues).map(([k, v]) => [k, round(v, 5)])) };
      if (i % 100 === 0) process.stderr.write(`  stills ${i}/${cases.length}\n`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return out;
}

const BPCER_POINT = 0.1;

/** AUC and APCER at BPCER 10 % on one set of scores, and the rates at the operating threshold fixed on tuning. */
function figures(scores: { score: number; attack: boolean }[], threshold: number) {
  const atOwn = ratesAt(scores, thresholdAtBpcer(scores, BPCER_POINT));
  const atOperating = ratesAt(scores, threshold);
  return {
    live: atOperating.live,
    attacks: atOperating.attacks,
    auc: round(aucOf(scores)),
    apcer_at_bpcer_10: round(atOwn.apcer),
    operating_apcer: round(atOperating.apcer),
    operating_bpcer: round(atOperating.bpcer),
  };
}

/**
 * Chooses the cues and fits their combination and its threshold (BPCER 10 %) on the tuning
 * split alone, then reports both splits, the validation's real presentations apart from the
 * generated ones, and each attack kind.
 */
export function reportStills(stills: readonly MeasuredStill[]) {
  const faced = stills.filter((s) => s.face);
  const sample = (s: MeasuredStill) => ({ cues: s.cues, attack: s.kind !== 'live' });
  const tuning = faced.filter((s) => s.split === 'tuning');
  const validation = faced.filter((s) => s.split === 'validation');
  const names = Object.keys(faced[0]?.cues ?? {});

  // Each cue alone, its direction set on tuning.
  const alone = names.map((name) => {
    const on = (set: readonly MeasuredStill[], sign: number) =>
      aucOf(
        set.filter((s) => Number.isFinite(s.cues[name])).map((s) => ({ score: sign * s.cues[name]!, attack: s.kind !== 'live' })),
      );
    const t = on(tuning, 1);
    const sign = t >= 0.5 ? 1 : -1;
    return {
      cue: name,
      direction: sign > 0 ? 'higher: attack' : 'lower: attack',
      tuning_auc: round(on(tuning, sign)),
      validation_auc: round(on(validation, sign)),
    };
  });
  const selection = selectFeatures(tuning.map(sample), names);
  // Rounded as the product carries it, and scored as rounded.
  const fitted = fitLogistic(tuning.map(sample), selection.chosen);
  const model: StillModel = {
    features: fitted.features,
    mean: fitted.mean.map((x) => round(x, 6)),
    scale: fitted.scale.map((x) => round(x, 6)),
    weights: fitted.weights.map((x) => round(x, 6)),
    bias: round(fitted.bias, 6),
  };
  const scored = (set: readonly MeasuredStill[]) =>
    set.map((s) => ({ score: stillScore(model, s.cues), attack: s.kind !== 'live' }));
  const threshold = thresholdAtBpcer(scored(tuning), BPCER_POINT);
  const splits = {
    tuning: figures(scored(tuning), threshold),
    validation: figures(scored(validation), threshold),
    validation_real_presentations: figures(
      scored(validation.filter((s) => s.source === 'real' && !s.name.startsWith('faces-celeba'))),
      threshold,
    ),
    validation_celeba_and_generated: figures(scored(validation.filter((s) => s.name.startsWith('faces-celeba'))), threshold),
  };
  const kinds = [...new Set(faced.map((s) => s.kind))];
  const byKind = (['tuning', 'validation'] as const)
    .flatMap((split) =>
      kinds.map((kind) => {
        const rows = faced.filter((s) => s.split === split && s.kind === kind);
        const refused = rows.filter((s) => stillScore(model, s.cues) >= threshold).length;
        return {
          split,
          kind,
          stills: rows.length,
          no_face: stills.filter((s) => s.split === split && s.kind === kind && !s.face).length,
          metric: kind === 'live' ? 'BPCER' : 'APCER',
          value: rows.length ? round(kind === 'live' ? refused / rows.length : 1 - refused / rows.length) : NaN,
        };
      }),
    )
    .filter((r) => r.stills > 0);
  console.log('\nUna sola imagen: cada indicio solo (su sentido fijado en el ajuste):');
  printTable(alone);
  console.log(
    `\nElegidos en el ajuste: ${selection.chosen.join(', ')}; umbral de operación ${round(threshold)} (BPCER 10 % del ajuste)`,
  );
  printTable(Object.entries(splits).map(([split, f]) => ({ split, ...f })));
  printTable(byKind);
  return {
    bpcer_point: BPCER_POINT,
    cues_alone: alone,
    selection: selection.steps,
    model,
    operating_threshold: round(threshold, 6),
    splits,
    by_kind: byKind,
  };
}
