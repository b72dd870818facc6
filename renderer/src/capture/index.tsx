/**
 * STUB of the capture components: image-file upload only. The real module (camera capture, branch
 * wt-capture) exports the same API and keeps these test ids; the integrator keeps that one.
 */
import { useState, type JSX } from 'react';
import { encodeTemplate } from '../../../common/uitemplate/index.js';

export type Locale = 'es-AR' | 'en';
export interface CapturedFace {
  template: string /* UITemplate base64url from common/ encoder */;
  preview: string /* data: URL of best frame */;
  frames: number;
}
export interface FaceCaptureProps {
  locale: Locale;
  onCapture: (face: CapturedFace) => void;
  maxFrames?: number;
  deviceId?: string;
  disabled?: boolean;
}
export interface CapturedDocument {
  template: string /* UITemplate with front (and back) frames */;
  front: string;
  back: string | null;
}
export interface DocumentCaptureProps {
  locale: Locale;
  onCapture: (doc: CapturedDocument) => void;
  deviceId?: string;
  requireBack?: boolean;
}

const TEXT = {
  'es-AR': {
    face: 'Foto del rostro (archivo JPEG o PNG)',
    front: 'Frente del DNI (archivo)',
    back: 'Dorso del DNI (archivo)',
    done: 'Usar estas imágenes',
    bad: 'No se pudo usar la imagen',
  },
  en: {
    face: 'Face photo (JPEG or PNG file)',
    front: 'DNI front (file)',
    back: 'DNI back (file)',
    done: 'Use these images',
    bad: 'The image could not be used',
  },
} as const;

const SOFTWARE = 'enrolla-console';

async function readFile(file: File): Promise<{ data: Uint8Array; url: string }> {
  const data = new Uint8Array(await file.arrayBuffer());
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('FileReader'));
    reader.readAsDataURL(file);
  });
  return { data, url };
}

export function FaceCapture(props: FaceCaptureProps): JSX.Element {
  const text = TEXT[props.locale];
  const [error, setError] = useState<string | null>(null);
  const maxFrames = props.maxFrames ?? 5;

  async function onFiles(list: FileList | null) {
    setError(null);
    const files = Array.from(list ?? []).slice(0, maxFrames);
    if (files.length === 0) return;
    try {
      const read = await Promise.all(files.map(readFile));
      const template = await encodeTemplate({
        kind: 'face',
        frames: read.map((r, i) => ({ data: r.data, offsetMs: i * 200 })),
        device: {
          kind: 'file',
          software: SOFTWARE,
          label: files
            .map((f) => f.name)
            .join(',')
            .slice(0, 128),
        },
      });
      props.onCapture({ template, preview: read[0]!.url, frames: read.length });
    } catch (e) {
      setError(`${text.bad}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  return (
    <div className="capture">
      <label>
        {text.face}
        <input
          type="file"
          accept="image/jpeg,image/png"
          multiple={maxFrames > 1}
          disabled={props.disabled}
          data-testid="face-capture-file"
          onChange={(e) => void onFiles(e.target.files)}
        />
      </label>
      {error && (
        <p role="alert" className="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function DocumentCapture(props: DocumentCaptureProps): JSX.Element {
  const text = TEXT[props.locale];
  const [front, setFront] = useState<File | null>(null);
  const [back, setBack] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ready = front !== null && (!props.requireBack || back !== null);

  async function done() {
    if (!front) return;
    setError(null);
    try {
      const f = await readFile(front);
      const b = back ? await readFile(back) : null;
      const template = await encodeTemplate({
        kind: 'document',
        frames: [{ data: f.data, side: 'front' }, ...(b ? [{ data: b.data, side: 'back' as const }] : [])],
        device: { kind: 'file', software: SOFTWARE },
      });
      props.onCapture({ template, front: f.url, back: b?.url ?? null });
    } catch (e) {
      setError(`${text.bad}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  return (
    <div className="capture">
      <label>
        {text.front}
        <input
          type="file"
          accept="image/jpeg,image/png"
          data-testid="document-capture-front-file"
          onChange={(e) => setFront(e.target.files?.[0] ?? null)}
        />
      </label>
      <label>
        {text.back}
        <input
          type="file"
          accept="image/jpeg,image/png"
          data-testid="document-capture-back-file"
          onChange={(e) => setBack(e.target.files?.[0] ?? null)}
        />
      </label>
      <button type="button" data-testid="document-capture-done" disabled={!ready} onClick={() => void done()}>
        {text.done}
      </button>
      {error && (
        <p role="alert" className="alert">
          {error}
        </p>
      )}
    </div>
  );
}
