import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  configureCapture,
  DocumentCapture,
  FaceCapture,
  type CapturedDocument,
  type CapturedFace,
  type Locale,
} from './capture/index.js';

/**
 * Standalone page for the capture components (`/capture.html`): try them on a station, and the
 * page the e2e test drives with Chromium's fake camera. The templates appear as text to copy.
 * `?locale=en`, `?only=face|document`, `?frames=N`, `?backend=wasm|webgl`.
 */
function Harness() {
  const params = new URLSearchParams(window.location.search);
  const locale: Locale = params.get('locale') === 'en' ? 'en' : 'es-AR';
  const only = params.get('only');
  const frames = Number(params.get('frames')) || undefined;
  const [face, setFace] = useState<CapturedFace | null>(null);
  const [doc, setDoc] = useState<CapturedDocument | null>(null);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 16, display: 'grid', gap: 24 }}>
      <h1>Enrolla · {locale === 'en' ? 'capture components' : 'componentes de captura'}</h1>
      {only !== 'document' ? (
        <section>
          <h2>{locale === 'en' ? 'Face' : 'Rostro'}</h2>
          <FaceCapture locale={locale} onCapture={setFace} {...(frames ? { maxFrames: frames } : {})} />
          {face ? (
            <p>
              <span data-testid="harness-face-frames">{face.frames}</span> · {face.template.length} chars
              <textarea readOnly data-testid="harness-face-template" value={face.template} rows={3} style={{ width: '100%' }} />
            </p>
          ) : null}
        </section>
      ) : null}
      {only !== 'face' ? (
        <section>
          <h2>{locale === 'en' ? 'Document' : 'Documento'}</h2>
          <DocumentCapture locale={locale} onCapture={setDoc} />
          {doc ? (
            <p>
              {doc.back ? 'front + back' : 'front'} · {doc.template.length} chars
              <textarea
                readOnly
                data-testid="harness-document-template"
                value={doc.template}
                rows={3}
                style={{ width: '100%' }}
              />
            </p>
          ) : null}
        </section>
      ) : null}
    </main>
  );
}

const backend = new URLSearchParams(window.location.search).get('backend');
if (backend === 'wasm' || backend === 'webgl') configureCapture({ backend });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Harness />
  </StrictMode>,
);
