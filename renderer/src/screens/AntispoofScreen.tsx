import { useState, type FormEvent } from 'react';
import type { CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';
import { thresholdParam } from '../prefs.js';
import { FaceInput } from '../ui/face-input.js';
import { Bar, Busy, ErrorAlert, Motivo, Verdict } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

async function fileBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Presentation-attack check (photo, screen), and optionally whether it matches a reference photo. */
export function AntispoofScreen() {
  const { t, prefs } = useConsole();
  const [face, setFace] = useState<CapturedFace | null>(null);
  const [reference, setReference] = useState<File | null>(null);
  const spoof = useOperation('spoof');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!face) return;
    await spoof.run({
      template: face.template,
      ...(reference ? { image: await fileBase64(reference) } : {}),
      parametros: { extractFace: false, ...thresholdParam(prefs.spoofThreshold) },
    });
  }

  const data = spoof.data;
  const verdict =
    data?.status === 'NO_SPOOF_CHECK_CONFIDENCE' ? 'ok' : data?.status === 'IS_SPOOF_CHECK_CONFIDENCE' ? 'bad' : 'warn';
  return (
    <section aria-labelledby="spoof-title">
      <h2 id="spoof-title">{t('spoof.title')}</h2>
      <form onSubmit={(e) => void submit(e)} className="form">
        <FaceInput face={face} onFace={setFace} disabled={spoof.busy} />
        <label>
          {t('spoof.reference')}
          <input
            type="file"
            accept="image/jpeg,image/png"
            data-testid="spoof-reference-file"
            onChange={(e) => setReference(e.target.files?.[0] ?? null)}
          />
        </label>
        <button type="submit" className="primary" disabled={spoof.busy || !face}>
          {t('spoof.submit')}
        </button>
      </form>
      {spoof.busy && <Busy />}
      <ErrorAlert error={spoof.error} />
      {data && (
        <Verdict
          tone={verdict}
          title={
            verdict === 'ok'
              ? t('spoof.live')
              : verdict === 'bad'
                ? t('spoof.attack')
                : data.status === 'TEMPLATE_WITHOUT_VIDEO'
                  ? t('spoof.singleFrame')
                  : t('spoof.failed')
          }
          status={data.status}
        >
          {data.confidence !== undefined && (
            <Bar
              label={t('spoof.attackConfidence')}
              value={data.confidence}
              {...(data.threshold !== undefined ? { mark: data.threshold } : {})}
            />
          )}
          {data.samePerson && (
            <p data-testid="same-person">
              {t('spoof.samePerson')}: <strong>{data.samePerson.match ? t('common.yes') : t('common.no')}</strong> (
              {t('common.confidence')} {data.samePerson.confidence})
            </p>
          )}
          <Motivo motivo={data.motivo} />
        </Verdict>
      )}
      {data?.cues && (
        <section aria-label={t('spoof.cues')}>
          <h3>{t('spoof.cues')}</h3>
          {Object.entries(data.cues).map(([name, value]) => (
            <Bar key={name} label={name} value={value} />
          ))}
        </section>
      )}
    </section>
  );
}
