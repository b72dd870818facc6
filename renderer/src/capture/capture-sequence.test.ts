import { describe, expect, it } from 'vitest';
import { CaptureSequence, type SequenceStep } from './capture-sequence.js';
import type { FaceGuidanceState } from './face-guidance.js';

/** Feeds states one per `stepMs`, returns the steps. */
function run(seq: CaptureSequence, states: FaceGuidanceState[], stepMs = 100): SequenceStep[] {
  return states.map((s, i) => seq.next(s, i * stepMs));
}

const policy = { maxFrames: 3, stableFrames: 3, intervalMs: 200 };

describe('CaptureSequence', () => {
  it('waits for three good frames in a row, then records one frame per interval up to the maximum', () => {
    const seq = new CaptureSequence(policy);
    const steps = run(seq, ['ok', 'ok', 'too-far', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(steps.slice(0, 5).every((s) => s.action === 'wait')).toBe(true);
    expect(steps[5]).toEqual({ action: 'record', offsetMs: 0 });
    expect(steps[6]).toEqual({ action: 'wait' });
    expect(steps[7]).toEqual({ action: 'record', offsetMs: 200 });
    expect(steps[9]).toEqual({ action: 'record', offsetMs: 400 });
    expect(seq.complete).toBe(true);
    expect(steps[10]).toEqual({ action: 'finish' });
  });

  it('keeps recording through a blink or a turn of the head (what liveness needs)', () => {
    const seq = new CaptureSequence(policy);
    const steps = run(seq, ['ok', 'ok', 'ok', 'eyes-closed', 'turned', 'turned', 'ok'], 200);
    expect(steps.filter((s) => s.action === 'record')).toHaveLength(3);
  });

  it('ends early with the frames it has when the face is lost or doubled while recording', () => {
    const seq = new CaptureSequence({ ...policy, stableFrames: 1 });
    expect(seq.next('ok', 0)).toEqual({ action: 'record', offsetMs: 0 });
    expect(seq.next('several-faces', 250)).toEqual({ action: 'finish' });
    expect(seq.frames).toBe(1);
  });

  it('starts counting good frames again after a lost face before recording', () => {
    const seq = new CaptureSequence(policy);
    run(seq, ['ok', 'ok']);
    expect(seq.next('no-face', 300)).toEqual({ action: 'wait' });
    expect(seq.next('ok', 400)).toEqual({ action: 'wait' });
    expect(seq.recording).toBe(false);
  });

  it('records at once when forced, whatever the guidance', () => {
    const seq = new CaptureSequence(policy);
    expect(seq.next('no-face', 0)).toEqual({ action: 'wait' });
    seq.force();
    const steps = run(seq, ['no-face', 'no-face', 'no-face', 'no-face', 'no-face'], 200);
    expect(steps.filter((s) => s.action === 'record')).toHaveLength(3);
  });
});
