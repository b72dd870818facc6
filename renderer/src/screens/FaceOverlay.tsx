import { useState } from 'react';
import type { ResponseOf } from '../../../common/api/operations.js';
import { jpeg } from '../ui/status.js';

type Properties = NonNullable<ResponseOf<'extractFace'>['properties']>;

/** The analysed frame with the face box, landmarks and eye points drawn in its own pixel space. */
export function FaceOverlay({ image, properties, label }: { image: string; properties: Properties; label: string }) {
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  const p = properties.position;
  const r = size ? Math.max(2, Math.round(Math.max(size.w, size.h) / 250)) : 2;
  return (
    <figure className="overlay" data-testid="face-overlay">
      <img
        src={jpeg(image)}
        alt={label}
        onLoad={(e) => setSize({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
      />
      {size && (
        <svg viewBox={`0 0 ${size.w} ${size.h}`} aria-hidden="true" preserveAspectRatio="none">
          <rect x={p.x} y={p.y} width={p.width} height={p.height} className="ov-box" strokeWidth={r} />
          {p.points.map((pt) => (
            <circle key={pt.num} cx={pt.x} cy={pt.y} r={r * 0.6} className="ov-point" />
          ))}
          {[properties.leftEyePoint, properties.rightEyePoint].map((eye, i) => (
            <circle key={i} cx={eye.x} cy={eye.y} r={r * 2.5} className="ov-eye" strokeWidth={r} />
          ))}
          <circle cx={properties.nosePoint.x} cy={properties.nosePoint.y} r={r * 2} className="ov-nose" strokeWidth={r} />
        </svg>
      )}
      <figcaption>{label}</figcaption>
    </figure>
  );
}
