import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { encodeTemplate } from '../../../common/uitemplate/index.js';
import { cardOutline, DOCUMENT_STEADY_FRAMES, documentGuidance, type DocumentGuidanceState } from './document-guidance.js';
import { canvasToJpeg, dataUrlOf, deviceInfo, drawFrame, fileToFrame, greyOf, mimeOf } from './frame-io.js';
import { motion, regionStats, sharpness, type GreyPlane } from './frame-stats.js';
import { DOCUMENT_MESSAGES, LABELS, type Locale } from './messages.js';
import { captureStyles as s } from './styles.js';
import { useCamera } from './use-camera.js';

export interface CapturedDocument {
  /** UITemplate (base64url) of kind document with the front (and back) frames. */
  template: string;
  /** data: URLs of the sides. */
  front: string;
  back: string | null;
}

export interface DocumentCaptureProps {
  locale: Locale;
  onCapture: (doc: CapturedDocument) => void;
  deviceId?: string;
  /** When false (default) the operator may finish with the front only. */
  requireBack?: boolean;
}

type Side = 'front' | 'back';
interface SideImage {
  data: Uint8Array;
  url: string;
  source: 'camera' | 'file';
}

const GREY_WIDTH = 320;
const TICK_MS = 120;

/**
 * Document capture: the card outline over the preview, front then back, automatic capture
 * when the card inside the outline is steady and sharp, a manual button, and file uploads.
 */
export function DocumentCapture(props: DocumentCaptureProps) {
  const { locale, onCapture, deviceId, requireBack = false } = props;
  const text = LABELS[locale];
  const [images, setImages] = useState<Partial<Record<Side, SideImage>>>({});
  const [guidance, setGuidance] = useState<DocumentGuidanceState>('no-card');
  const [awaitingFlip, setAwaitingFlip] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The stage takes the video's proportions, so the outline drawn over it is the region measured.
  const [aspect, setAspect] = useState('4 / 3');
  const side: Side | null = !images.front ? 'front' : !images.back ? 'back' : null;
  const { videoRef, error: cameraError, label } = useCamera(deviceId, side !== null, 'environment');
  const forceRef = useRef(false);
  const labelRef = useRef(label);
  labelRef.current = label;

  useEffect(() => {
    if (!side) return;
    let cancelled = false;
    const frame = document.createElement('canvas');
    const scratch = document.createElement('canvas');
    let previous: GreyPlane | null = null;
    let steady = 0;
    // After a side is taken the card must leave or move before the next side is taken:
    // otherwise the front, still steady in view, would be captured again as the back.
    let armed = side === 'front';
    (async () => {
      while (!cancelled) {
        const video = videoRef.current;
        if (video && drawFrame(video, frame)) {
          const grey = greyOf(frame, GREY_WIDTH, scratch);
          const outline = cardOutline(grey.width, grey.height);
          const state = documentGuidance({
            ...regionStats(grey, outline),
            sharpness: sharpness(grey, outline),
            // No previous frame is no evidence of motion (and must not arm the next side).
            motion: previous ? motion(previous, grey) : 0,
          });
          previous = grey;
          setGuidance(state);
          if (state !== 'ok') armed = true;
          setAwaitingFlip(!armed);
          steady = state === 'ok' && armed ? steady + 1 : 0;
          if (steady >= DOCUMENT_STEADY_FRAMES || forceRef.current) {
            forceRef.current = false;
            const data = await canvasToJpeg(frame);
            if (cancelled) return;
            const image: SideImage = { data, url: dataUrlOf(data, 'image/jpeg'), source: 'camera' };
            setImages((prev) => ({ ...prev, [side]: image }));
            return;
          }
        }
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [side, videoRef]);

  const onFile = (which: Side) => async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setFileError(null);
    try {
      const data = await fileToFrame(file);
      setImages((prev) => ({ ...prev, [which]: { data, url: dataUrlOf(data, mimeOf(data)), source: 'file' } }));
    } catch {
      setFileError(text.badFile);
    }
  };

  const canFinish = Boolean(images.front) && (Boolean(images.back) || !requireBack);
  const finish = async () => {
    const front = images.front;
    if (!front) return;
    setBusy(true);
    try {
      const back = images.back ?? null;
      const sides = [front, ...(back ? [back] : [])];
      const template = await encodeTemplate({
        kind: 'document',
        frames: [{ data: front.data, side: 'front' }, ...(back ? [{ data: back.data, side: 'back' as const }] : [])],
        device: sides.some((i) => i.source === 'camera') ? deviceInfo('camera', labelRef.current) : deviceInfo('file'),
      });
      onCapture({ template, front: front.url, back: back?.url ?? null });
    } catch {
      setFileError(text.badFile);
    } finally {
      setBusy(false);
    }
  };

  const retake = (which: Side) => setImages((prev) => ({ ...prev, [which]: undefined }));
  const [aw, ah] = aspect.split(' / ').map(Number) as [number, number];
  // The outline in percent of the stage: cardOutline on the video's own size, scaled to 100.
  const box = cardOutline(aw, ah);
  const outline = {
    x: (box.x / aw) * 100,
    y: (box.y / ah) * 100,
    width: (box.width / aw) * 100,
    height: (box.height / ah) * 100,
  };

  return (
    <div style={s.root} data-component="enrolla-document-capture">
      {side ? (
        <>
          <strong>{side === 'front' ? text.front : text.back}</strong>
          <div style={{ ...s.stage, aspectRatio: aspect }}>
            <video
              ref={videoRef}
              data-testid="document-capture-video"
              style={s.video}
              muted
              playsInline
              autoPlay
              onLoadedMetadata={(e) => {
                const v = e.currentTarget;
                if (v.videoWidth && v.videoHeight) setAspect(`${v.videoWidth} / ${v.videoHeight}`);
              }}
            />
            <div
              aria-hidden="true"
              style={{
                position: 'absolute',
                left: `${outline.x}%`,
                top: `${outline.y}%`,
                width: `${outline.width}%`,
                height: `${outline.height}%`,
                border: `3px dashed ${guidance === 'ok' ? '#1a9c4a' : '#ffffff'}`,
                borderRadius: '4%',
                boxShadow: '0 0 0 999px rgba(0,0,0,0.35)',
              }}
            />
          </div>
          <p
            data-testid="document-capture-guidance"
            data-state={guidance}
            data-awaiting-flip={awaitingFlip}
            role="status"
            aria-live="polite"
            style={{ ...s.guidance, ...(guidance === 'ok' && !awaitingFlip ? s.guidanceOk : {}) }}
          >
            {awaitingFlip ? text.flip : DOCUMENT_MESSAGES[locale][guidance]}
          </p>
          {cameraError ? (
            <p role="alert" style={s.error}>
              {text.cameraError}: {cameraError}
            </p>
          ) : null}
        </>
      ) : null}
      {fileError ? (
        <p role="alert" style={s.error}>
          {fileError}
        </p>
      ) : null}
      <div style={s.sides}>
        {(['front', 'back'] as const).map((which) =>
          images[which] ? (
            <figure key={which} style={{ margin: 0 }}>
              <img
                src={images[which].url}
                alt={which === 'front' ? text.front : text.back}
                data-testid={`document-capture-${which}-preview`}
                data-source={images[which].source}
                style={s.thumb}
              />
              <figcaption>
                <button type="button" onClick={() => retake(which)}>
                  {text.retry}
                </button>
              </figcaption>
            </figure>
          ) : null,
        )}
      </div>
      <div style={s.actions}>
        {side ? (
          <button
            type="button"
            data-testid="document-capture-button"
            disabled={Boolean(cameraError)}
            onClick={() => {
              forceRef.current = true;
            }}
          >
            {text.forceCapture}
          </button>
        ) : null}
        <label style={s.fileLabel}>
          {text.uploadFront}
          <input
            type="file"
            accept="image/jpeg,image/png,image/*"
            data-testid="document-capture-front-file"
            onChange={(e) => void onFile('front')(e)}
          />
        </label>
        <label style={s.fileLabel}>
          {text.uploadBack}
          <input
            type="file"
            accept="image/jpeg,image/png,image/*"
            data-testid="document-capture-back-file"
            onChange={(e) => void onFile('back')(e)}
          />
        </label>
        <button type="button" data-testid="document-capture-done" disabled={!canFinish || busy} onClick={() => void finish()}>
          {images.back || requireBack ? text.done : text.skipBack}
        </button>
      </div>
    </div>
  );
}
