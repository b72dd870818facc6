import type { CSSProperties } from 'react';

/**
 * Inline styles, so that a front end embedding the components needs no stylesheet (the
 * station's CSP allows inline styles, not remote ones).
 */
export const captureStyles = {
  root: { display: 'flex', flexDirection: 'column', gap: 8, maxWidth: 640, fontFamily: 'inherit' },
  stage: { position: 'relative', width: '100%', aspectRatio: '4 / 3', background: '#111', borderRadius: 8, overflow: 'hidden' },
  video: { position: 'absolute', inset: 0, width: '100%', height: '100%', objectFit: 'contain' },
  overlay: { position: 'absolute', inset: 0, width: '100%', height: '100%', objectFit: 'contain', pointerEvents: 'none' },
  mirror: { transform: 'scaleX(-1)' },
  preview: { width: '100%', borderRadius: 8 },
  guidance: { margin: 0, padding: '6px 10px', borderRadius: 6, background: '#fff4d6', color: '#5a4300', fontWeight: 600 },
  guidanceOk: { background: '#dff5e6', color: '#14532d' },
  error: { margin: 0, color: '#b00020' },
  actions: { display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' },
  fileLabel: { display: 'flex', gap: 6, alignItems: 'center', fontSize: '0.9em' },
  sides: { display: 'flex', gap: 8 },
  thumb: { width: 160, borderRadius: 6, border: '1px solid #ccc' },
} satisfies Record<string, CSSProperties>;
