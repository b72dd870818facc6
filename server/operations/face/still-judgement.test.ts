import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spoofDecision, type PresentationVerdict } from './presentation-attack.js';
import { STILL_MODEL, STILL_THRESHOLD, STILL_VALIDATION, stillScore } from './still-judgement.js';

const evalPad = JSON.parse(readFileSync(new URL('../../../bench/results/eval-pad.json', import.meta.url), 'utf8')) as {
  single_stills: {
    model: typeof STILL_MODEL;
    operating_threshold: number;
    splits: { validation: { auc: number; operating_apcer: number; operating_bpcer: number; attacks: number; live: number } };
  };
};

describe('one still judged', () => {
  it('carries the combination, threshold and validation figures eval:pad fitted and measured', () => {
    const s = evalPad.single_stills;
    expect(STILL_MODEL).toEqual(s.model);
    expect(STILL_THRESHOLD).toBeCloseTo(s.operating_threshold, 6);
    const v = s.splits.validation;
    expect(STILL_VALIDATION).toEqual({
      auc: v.auc,
      apcer: v.operating_apcer,
      bpcer: v.operating_bpcer,
      attacks: v.attacks,
      live: v.live,
    });
  });

  it('scores a cue it could not measure as the tuning mean', () => {
    const mean = Object.fromEntries(STILL_MODEL.features.map((f, i) => [f, STILL_MODEL.mean[i]!]));
    expect(stillScore(STILL_MODEL, {})).toBeCloseTo(stillScore(STILL_MODEL, mean), 12);
  });

  const judged = (attackConfidence: number, validationApcer: number): PresentationVerdict => ({
    attackConfidence,
    cues: {},
    evidence: 'single-frame',
    judgedStill: { threshold: 40, validationApcer },
  });

  it('never certifies a still with less attack confidence than the attacks its point let through', () => {
    expect(spoofDecision(judged(10, 0.25), 40, 'judge')).toEqual({ status: 'NO_SPOOF_CHECK_CONFIDENCE', confidence: 25 });
    expect(spoofDecision(judged(30, 0.25), 40, 'judge')).toEqual({ status: 'NO_SPOOF_CHECK_CONFIDENCE', confidence: 30 });
    expect(spoofDecision(judged(45, 0.25), 40, 'judge')).toEqual({ status: 'IS_SPOOF_CHECK_CONFIDENCE', confidence: 45 });
  });

  it('certifies no still when that share reaches the threshold, and none at all by default', () => {
    expect(spoofDecision(judged(10, 0.5), 40, 'judge')).toEqual({ status: 'TEMPLATE_WITHOUT_VIDEO', confidence: 50 });
    expect(spoofDecision({ attackConfidence: 10, cues: {}, evidence: 'single-frame' }, 50, 'refuse').status).toBe(
      'TEMPLATE_WITHOUT_VIDEO',
    );
  });
});
