import { describe, expect, it } from 'vitest';
import type { DetectedFace } from '../../server/engines/index.js';
import { detectionCensus } from './detection-census.js';

const face = (x: number, size: number, score: number, height = size): DetectedFace => ({
  box: { x, y: 0, width: size, height },
  score,
});

describe('detectionCensus', () => {
  it('counts lone faces and lists the other boxes beside the one described', () => {
    const census = detectionCensus([
      { file: 'a.jpg', faces: [face(0, 100, 1)] },
      { file: 'b.jpg', faces: [face(0, 100, 0.42)] },
      { file: 'c.jpg', faces: [] },
      // A doubted box around the face (dropped) and a sure bystander.
      { file: 'd.jpg', faces: [face(0, 238, 0.65, 334), face(60, 161, 1), face(400, 60, 0.97)] },
      // Nothing sure: nothing listed.
      { file: 'e.jpg', faces: [face(0, 100, 0.5), face(300, 80, 0.4)] },
    ]);
    expect(census).toMatchObject({
      photos_with_faces: 4,
      one_detection: 2,
      one_detection_scored_1: 1,
      one_detection_lowest: 0.42,
    });
    expect(census.others).toEqual([
      { file: 'd.jpg', score: 0.65, width: 238, described_score: 1, described_width: 161, dropped: true },
      { file: 'd.jpg', score: 0.97, width: 60, described_score: 1, described_width: 161, dropped: false },
    ]);
  });
});
