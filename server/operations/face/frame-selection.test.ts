import { describe, expect, it } from 'vitest';
import type { FrameAnalysis, MajorFace } from '../../engines/face/types.js';
import { framesPassing, type UsableFrame } from './frame-selection.js';

function frame(index: number, score: number, iod: number, embedding = true): UsableFrame {
  const face = { iod, embedding: embedding ? new Float32Array(4) : null } as unknown as MajorFace;
  return {
    index,
    analysis: {} as FrameAnalysis,
    face,
    quality: { score, failed: score < 35 ? ['sharpness'] : [] } as unknown as UsableFrame['quality'],
  };
}

const selectionOf = (frames: UsableFrame[]) => ({
  ok: true as const,
  best: [...frames].sort((a, b) => b.quality.score - a.quality.score)[0]!,
  frames,
  all: frames,
});
const gates = { minQuality: 35, minIod: 40 };

describe('framesPassing', () => {
  it('keeps the frames over both gates that carry an embedding, best quality first', () => {
    const passing = framesPassing(
      selectionOf([frame(0, 50, 60), frame(1, 90, 30), frame(2, 80, 45), frame(3, 95, 80, false), frame(4, 20, 90)]),
      gates,
    );
    expect(passing.ok && passing.frames.map((f) => f.index)).toEqual([2, 0]);
  });

  it("names the best frame's quality and eye distance against the gates when none passes", () => {
    const refused = framesPassing(selectionOf([frame(0, 30, 70), frame(1, 60, 15)]), gates);
    expect(refused).toEqual({
      ok: false,
      quality: 60,
      shortfall: 'mejor: calidad 60 de 35, distancia entre ojos 15 px de 40; falla: -',
    });
  });
});
