import type { FaceGuidanceState } from './face-guidance.js';

/**
 * When to take the frames of a face capture. Automatic capture starts after `stableFrames`
 * consecutive good frames, then records one frame every `intervalMs` until `maxFrames`: the
 * sequence spans about a second, enough for the blink or head motion the station's liveness
 * check looks for. While recording, a turned head or a blink is wanted, not refused; a lost
 * or doubled face ends the sequence early with the frames recorded so far.
 */
export interface SequencePolicy {
  maxFrames: number;
  stableFrames: number;
  intervalMs: number;
}

export const DEFAULT_SEQUENCE: SequencePolicy = { maxFrames: 5, stableFrames: 3, intervalMs: 250 };

export type SequenceStep = { action: 'wait' } | { action: 'record'; offsetMs: number } | { action: 'finish' };

export class CaptureSequence {
  private goodStreak = 0;
  private startedAt: number | null = null;
  private lastRecordAt = -Infinity;
  private recorded = 0;
  private forced = false;

  constructor(private readonly policy: SequencePolicy = DEFAULT_SEQUENCE) {}

  get frames(): number {
    return this.recorded;
  }

  get recording(): boolean {
    return this.startedAt !== null;
  }

  /** Manual capture: record from the next frame whatever the guidance says. */
  force(): void {
    this.forced = true;
  }

  /** One analysed frame at `nowMs`; says whether to record it. */
  next(state: FaceGuidanceState, nowMs: number): SequenceStep {
    if (this.recorded >= this.policy.maxFrames) return { action: 'finish' };
    const lost = state === 'no-face' || state === 'several-faces';
    if (this.startedAt === null) {
      this.goodStreak = state === 'ok' ? this.goodStreak + 1 : 0;
      if (!this.forced && this.goodStreak < this.policy.stableFrames) return { action: 'wait' };
      this.startedAt = nowMs;
    } else if (lost && !this.forced) {
      // Recording starts with a frame, so something was recorded: keep it.
      return { action: 'finish' };
    }
    if (nowMs - this.lastRecordAt < this.policy.intervalMs) return { action: 'wait' };
    this.lastRecordAt = nowMs;
    this.recorded++;
    return { action: 'record', offsetMs: Math.max(0, Math.round(nowMs - this.startedAt)) };
  }

  /** True once the sequence has all its frames. */
  get complete(): boolean {
    return this.recorded >= this.policy.maxFrames;
  }
}
