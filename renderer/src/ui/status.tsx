import type { ReactNode } from 'react';
import { useConsole } from '../console-context.js';
import { statusText } from '../labels.js';

/** Shown while a call runs: a spinner and words, announced to screen readers. */
export function Busy({ label }: { label?: string }) {
  const { t } = useConsole();
  return (
    <p className="busy" role="status" aria-busy="true" data-testid="busy">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('common.working')}
    </p>
  );
}

export function ErrorAlert({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="alert">
      {error}
    </p>
  );
}

export type Tone = 'ok' | 'bad' | 'warn';

/** The big result a counter operator reads at a glance: green accepted, red rejected, amber retry. */
export function Verdict({ tone, title, status, children }: { tone: Tone; title: string; status: string; children?: ReactNode }) {
  const { locale } = useConsole();
  const text = statusText(locale, status);
  return (
    <section className={`verdict verdict-${tone}`} role="status" data-testid="verdict" data-status={status}>
      <p className="verdict-title">
        <span aria-hidden="true">{tone === 'ok' ? '✔' : tone === 'bad' ? '✖' : '⚠'}</span> {title}
      </p>
      <p className="verdict-code">
        <code>{status}</code>
        {text && text !== title ? ` · ${text}` : ''}
      </p>
      {children}
    </section>
  );
}

/** A 0-100 value as a bar, with an optional threshold mark. */
export function Bar({ label, value, max = 100, mark }: { label: string; value: number; max?: number; mark?: number }) {
  const pct = Math.max(0, Math.min(100, (value / max) * 100));
  return (
    <div className="bar">
      <span className="bar-label">{label}</span>
      <span className="bar-track" role="meter" aria-label={label} aria-valuenow={value} aria-valuemin={0} aria-valuemax={max}>
        <span className="bar-fill" style={{ width: `${pct}%` }} />
        {mark !== undefined && <span className="bar-mark" style={{ left: `${(mark / max) * 100}%` }} />}
      </span>
      <span className="bar-value">{Math.round(value * 10) / 10}</span>
    </div>
  );
}

export function Badge({ on, children }: { on: boolean; children: ReactNode }) {
  return <span className={`badge ${on ? 'badge-on' : 'badge-off'}`}>{children}</span>;
}

/** A JPEG the station sent as bare base64. */
export function jpeg(base64: string): string {
  return base64.startsWith('data:') ? base64 : `data:image/jpeg;base64,${base64}`;
}

export function Motivo({ motivo }: { motivo: string | undefined }) {
  const { t } = useConsole();
  if (!motivo) return null;
  return (
    <p className="motivo">
      {t('common.reason')}: {motivo}
    </p>
  );
}
