import { useState, type FormEvent } from 'react';
import type { CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';
import { thresholdParam } from '../prefs.js';
import { FaceInput } from '../ui/face-input.js';
import { Bar, Busy, ErrorAlert, Motivo, Verdict } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

/** 1:1: is the person at the counter the one enrolled under this id? */
export function VerifyScreen() {
  const { t, prefs } = useConsole();
  const [idPersona, setIdPersona] = useState('');
  const [face, setFace] = useState<CapturedFace | null>(null);
  const verify = useOperation('verify');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!face) return;
    await verify.run({ idPersona: idPersona.trim(), template: face.template, parametros: thresholdParam(prefs.verifyThreshold) });
  }

  const data = verify.data;
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">{t('verify.title')}</h2>
      <form onSubmit={(e) => void submit(e)} className="form">
        <label>
          {t('common.idPersona')}
          <input value={idPersona} onChange={(e) => setIdPersona(e.target.value)} required maxLength={128} />
        </label>
        <FaceInput face={face} onFace={setFace} disabled={verify.busy} />
        <button type="submit" className="primary" disabled={verify.busy || !face || idPersona.trim() === ''}>
          {t('verify.submit')}
        </button>
      </form>
      {verify.busy && <Busy />}
      <ErrorAlert error={verify.error} />
      {data && (
        <Verdict
          tone={data.status === 'CHECK_CONFIDENCE' ? 'ok' : data.status === 'NOT_VERIFIED' ? 'bad' : 'warn'}
          title={
            data.status === 'CHECK_CONFIDENCE'
              ? t('verify.ok')
              : data.status === 'NOT_VERIFIED'
                ? t('verify.no')
                : data.status === 'INEXISTENT' || data.status === 'WITHOUT_TEMPLATE'
                  ? t('verify.inexistent')
                  : t('verify.failed')
          }
          status={data.status}
        >
          {data.confidence !== undefined && (
            <Bar
              label={t('common.confidence')}
              value={data.confidence}
              {...(data.threshold !== undefined ? { mark: data.threshold } : {})}
            />
          )}
          {data.threshold !== undefined && (
            <p>
              {t('common.threshold')}: {data.threshold} · {t('common.faP')}: {data.faP ?? t('common.none')}
            </p>
          )}
          <Motivo motivo={data.motivo} />
        </Verdict>
      )}
    </section>
  );
}
