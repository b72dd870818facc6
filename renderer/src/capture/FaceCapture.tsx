import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { TEMPLATE_LIMITS } from '../../../common/limits.js';
import { encodeTemplate, type FrameInput } from '../../../common/uitemplate/index.js';
import { CaptureSequence, DEFAULT_SEQUENCE } from './capture-sequence.js';
import { confidentFaces, DEFAULT_FACE_THRESHOLDS, faceGuidance, type FaceGuidanceState } from './face-guidance.js';
import { canvasToJpeg, dataUrlOf, deviceInfo, drawFrame, fileToFrame, greyOf, mimeOf } from './frame-io.js';
import { regionStats } from './frame-stats.js';
import { loadDetector, observe } from './human-detector.js';
import { FACE_MESSAGES, LABELS, type Locale } from './messages.js';
import { captureStyles as s } from './styles.js';
import { useCamera } from './use-camera.js';

export interface CapturedFace {
  /** UITemplate (base64url) built with the shared encoder. */
  template: string;
  /** data: URL of the best frame. */
  preview: string;
  frames: number;
}

export interface FaceCaptureProps {
  locale: Locale;
  onCapture: (face: CapturedFace) => void;
  maxFrames?: number;
  deviceId?: string;
  disabled?: boolean;
}

type Phase = 'loading' | 'live' | 'recording' | 'done';
const GREY_WIDTH = 160;
const MIN_TICK_MS = 40;

interface Recorded {
  data: Uint8Array;
  offsetMs: number;
  state: FaceGuidanceState;
  iod: number;
}

/**
 * Live face capture: guidance on every analysed frame, automatic capture of a short sequence
 * once the frame is good, a button to force it, and a file upload fallback.
 */
export function FaceCapture(props: FaceCaptureProps) {
  const { locale, onCapture, deviceId, disabled = false } = props;
  const maxFrames = Math.min(TEMPLATE_LIMITS.maxFaceFrames, Math.max(1, props.maxFrames ?? DEFAULT_SEQUENCE.maxFrames));
  const text = LABELS[locale];
  const [phase, setPhase] = useState<Phase>('loading');
  const [guidance, setGuidance] = useState<FaceGuidanceState>('no-face');
  const [detectorError, setDetectorError] = useState<string | null>(null);
  const [recorded, setRecorded] = useState(0);
  const [preview, setPreview] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [analysed, setAnalysed] = useState(0);
  const [backendName, setBackendName] = useState('none');
  const live = !disabled && phase !== 'done';
  const { videoRef, error: cameraError, label } = useCamera(deviceId, live, 'user');
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const sequenceRef = useRef<CaptureSequence | null>(null);
  const onCaptureRef = useRef(onCapture);
  onCaptureRef.current = onCapture;
  const labelRef = useRef(label);
  labelRef.current = label;

  useEffect(() => {
    if (!live) return;
    let cancelled = false;
    const sequence = new CaptureSequence({ ...DEFAULT_SEQUENCE, maxFrames });
    sequenceRef.current = sequence;
    const frame = document.createElement('canvas');
    const scratch = document.createElement('canvas');
    const frames: Recorded[] = [];
    let backend = 'none';

    const finish = async () => {
      cancelled = true;
      const best = frames.find((f) => f.state === 'ok') ?? [...frames].sort((a, b) => b.iod - a.iod)[0]!;
      const template = await encodeTemplate({
        kind: 'face',
        frames: frames.map((f): FrameInput => ({ data: f.data, offsetMs: f.offsetMs })),
        device: deviceInfo('camera', labelRef.current),
        settings: { guidanceBackend: backend, autoCapture: frames.every((f) => f.state !== 'no-face') },
      });
      const previewUrl = dataUrlOf(best.data, 'image/jpeg');
      setPreview(previewUrl);
      setPhase('done');
      onCaptureRef.current({ template, preview: previewUrl, frames: frames.length });
    };

    (async () => {
      let human: Awaited<ReturnType<typeof loadDetector>>['human'] | null = null;
      try {
        const loaded = await loadDetector();
        human = loaded.human;
        backend = loaded.backend;
        setBackendName(backend);
      } catch (e) {
        if (!cancelled) setDetectorError(e instanceof Error ? e.message : String(e));
      }
      if (cancelled) return;
      setPhase('live');
      while (!cancelled) {
        const started = performance.now();
        const video = videoRef.current;
        if (video && drawFrame(video, frame)) {
          const result = human ? await human.detect(frame) : null;
          if (cancelled) return;
          const faces = confidentFaces((result?.face ?? []).map(observe), DEFAULT_FACE_THRESHOLDS.minScore);
          const grey = greyOf(frame, GREY_WIDTH, scratch);
          const k = GREY_WIDTH / frame.width;
          const face = faces[0];
          const region = face
            ? { x: face.box.x * k, y: face.box.y * k, width: face.box.width * k, height: face.box.height * k }
            : undefined;
          const light = regionStats(grey, region);
          const state = human
            ? faceGuidance({ width: frame.width, height: frame.height, faces, ...light })
            : ('no-face' as const);
          setGuidance(state);
          setAnalysed((n) => n + 1);
          drawOverlay(
            overlayRef.current,
            frame.width,
            frame.height,
            faces.map((f) => f.box),
            state === 'ok',
          );
          const step = sequence.next(state, performance.now());
          if (step.action === 'record') {
            frames.push({ data: await canvasToJpeg(frame), offsetMs: step.offsetMs, state, iod: face?.iod ?? 0 });
            setPhase('recording');
            setRecorded(frames.length);
          }
          if ((step.action === 'finish' || sequence.complete) && frames.length > 0) return finish();
        }
        const wait = Math.max(0, MIN_TICK_MS - (performance.now() - started));
        await new Promise((r) => setTimeout(r, wait));
      }
    })().catch((e) => setDetectorError(e instanceof Error ? e.message : String(e)));
    return () => {
      cancelled = true;
    };
  }, [live, maxFrames, round, videoRef]);

  const onFiles = async (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])].slice(0, maxFrames);
    event.target.value = '';
    if (files.length === 0) return;
    setFileError(null);
    try {
      const datas = await Promise.all(files.map(fileToFrame));
      const template = await encodeTemplate({
        kind: 'face',
        frames: datas.map((data, i) => ({ data, offsetMs: i * DEFAULT_SEQUENCE.intervalMs })),
        device: deviceInfo('file', files.map((f) => f.name).join(',')),
      });
      const previewUrl = dataUrlOf(datas[0]!, mimeOf(datas[0]!));
      setPreview(previewUrl);
      setRecorded(datas.length);
      setPhase('done');
      onCapture({ template, preview: previewUrl, frames: datas.length });
    } catch {
      setFileError(text.badFile);
    }
  };

  const retry = () => {
    setPreview(null);
    setRecorded(0);
    setGuidance('no-face');
    setPhase('loading');
    setRound((r) => r + 1);
  };

  const message =
    phase === 'loading'
      ? text.loading
      : phase === 'recording'
        ? text.recording(recorded, maxFrames)
        : phase === 'done'
          ? text.captured(recorded)
          : detectorError
            ? text.guidanceUnavailable
            : FACE_MESSAGES[locale][guidance];

  return (
    <div style={s.root} data-component="enrolla-face-capture">
      {phase === 'done' && preview ? (
        <img src={preview} alt="" style={s.preview} data-testid="face-capture-preview" />
      ) : (
        <div style={s.stage}>
          <video ref={videoRef} data-testid="face-capture-video" style={{ ...s.video, ...s.mirror }} muted playsInline autoPlay />
          <canvas ref={overlayRef} style={{ ...s.overlay, ...s.mirror }} />
        </div>
      )}
      <p
        data-testid="face-capture-guidance"
        data-state={guidance}
        data-phase={phase}
        data-analysed={analysed}
        data-backend={backendName}
        role="status"
        aria-live="polite"
        style={{ ...s.guidance, ...(guidance === 'ok' || phase === 'done' ? s.guidanceOk : {}) }}
      >
        {message}
      </p>
      {cameraError && phase !== 'done' ? (
        <p role="alert" style={s.error}>
          {text.cameraError}: {cameraError}
        </p>
      ) : null}
      {fileError ? (
        <p role="alert" style={s.error}>
          {fileError}
        </p>
      ) : null}
      <div style={s.actions}>
        {phase === 'done' ? (
          <button type="button" onClick={retry} disabled={disabled}>
            {text.retry}
          </button>
        ) : (
          <button
            type="button"
            data-testid="face-capture-button"
            disabled={disabled || phase === 'loading' || phase === 'recording' || Boolean(cameraError)}
            onClick={() => sequenceRef.current?.force()}
          >
            {text.forceCapture}
          </button>
        )}
        <label style={s.fileLabel}>
          {text.uploadFace}
          <input
            type="file"
            accept="image/jpeg,image/png,image/*"
            multiple
            data-testid="face-capture-file"
            disabled={disabled}
            onChange={(e) => void onFiles(e)}
          />
        </label>
      </div>
    </div>
  );
}

function drawOverlay(
  canvas: HTMLCanvasElement | null,
  width: number,
  height: number,
  boxes: { x: number; y: number; width: number; height: number }[],
  ok: boolean,
): void {
  if (!canvas) return;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, width, height);
  ctx.lineWidth = Math.max(2, width / 200);
  boxes.forEach((b, i) => {
    ctx.strokeStyle = i === 0 ? (ok ? '#1a9c4a' : '#e0a100') : '#c62828';
    ctx.strokeRect(b.x, b.y, b.width, b.height);
  });
}
