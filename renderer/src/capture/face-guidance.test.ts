import { describe, expect, it } from 'vitest';
import { DEFAULT_FACE_THRESHOLDS, faceGuidance, type FaceFrameMetrics, type FaceObservation } from './face-guidance.js';

// A 640x480 frame with one frontal face, centred, at a good distance, well lit: 'ok'.
const face = (over: Partial<FaceObservation> = {}): FaceObservation => ({
  box: { x: 240, y: 150, width: 160, height: 180 },
  score: 0.95,
  iod: 70,
  yaw: 2,
  pitch: -3,
  roll: 1,
  leftEyeOpenness: 0.3,
  rightEyeOpenness: 0.28,
  ...over,
});
const frame = (over: Partial<FaceFrameMetrics> = {}): FaceFrameMetrics => ({
  width: 640,
  height: 480,
  faces: [face()],
  brightness: 0.5,
  clipped: 0.01,
  ...over,
});

describe('faceGuidance', () => {
  it('is ok for a centred, frontal, well-lit face at a good distance', () => {
    expect(faceGuidance(frame())).toBe('ok');
  });

  it('finds no face in an empty frame or with only weak detections', () => {
    expect(faceGuidance(frame({ faces: [] }))).toBe('no-face');
    expect(faceGuidance(frame({ faces: [face({ score: 0.2 })] }))).toBe('no-face');
  });

  it('refuses two faces of similar size but ignores a small one in the background', () => {
    const other = face({ box: { x: 20, y: 20, width: 120, height: 140 } });
    expect(faceGuidance(frame({ faces: [face(), other] }))).toBe('several-faces');
    const tiny = face({ box: { x: 20, y: 20, width: 40, height: 45 } });
    expect(faceGuidance(frame({ faces: [tiny, face()] }))).toBe('ok');
  });

  it('asks for light, then less light', () => {
    expect(faceGuidance(frame({ brightness: 0.08 }))).toBe('too-dark');
    expect(faceGuidance(frame({ brightness: 0.95 }))).toBe('too-bright');
    expect(faceGuidance(frame({ clipped: 0.5 }))).toBe('too-bright');
  });

  it('asks to come closer under the IOD minimum and to move back when the face fills the frame', () => {
    expect(faceGuidance(frame({ faces: [face({ iod: DEFAULT_FACE_THRESHOLDS.minIod - 1 })] }))).toBe('too-far');
    expect(faceGuidance(frame({ faces: [face({ box: { x: 80, y: 20, width: 480, height: 440 }, iod: 200 })] }))).toBe(
      'too-close',
    );
  });

  it('asks to centre a face near the edge', () => {
    expect(faceGuidance(frame({ faces: [face({ box: { x: 460, y: 150, width: 160, height: 180 } })] }))).toBe('off-centre');
    expect(faceGuidance(frame({ faces: [face({ box: { x: 240, y: 0, width: 160, height: 150 } })] }))).toBe('off-centre');
  });

  it('asks to face the camera for yaw, pitch or roll beyond the limits, either way', () => {
    for (const over of [{ yaw: 30 }, { yaw: -30 }, { pitch: 25 }, { pitch: -25 }, { roll: 20 }, { roll: -20 }]) {
      expect(faceGuidance(frame({ faces: [face(over)] }))).toBe('turned');
    }
  });

  it('asks to open the eyes when either is shut', () => {
    expect(faceGuidance(frame({ faces: [face({ leftEyeOpenness: 0.05 })] }))).toBe('eyes-closed');
    expect(faceGuidance(frame({ faces: [face({ rightEyeOpenness: 0.05, leftEyeOpenness: 0.05 })] }))).toBe('eyes-closed');
  });

  it('gives the first thing to fix: light before distance, distance before pose', () => {
    const far = face({ iod: 20, yaw: 40 });
    expect(faceGuidance(frame({ faces: [far], brightness: 0.05 }))).toBe('too-dark');
    expect(faceGuidance(frame({ faces: [far] }))).toBe('too-far');
  });
});
