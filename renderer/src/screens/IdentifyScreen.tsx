import { useEffect, useState, type FormEvent } from 'react';
import type { ResponseOf } from '../../../common/api/operations.js';
import { callOperation } from '../api/client.js';
import type { CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';
import { thresholdParam } from '../prefs.js';
import { FaceInput } from '../ui/face-input.js';
import { Bar, Busy, ErrorAlert, jpeg, Motivo, Verdict } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

type Candidate = ResponseOf<'identify'>['candidates'][number];

/** Each candidate's first enrolled thumbnail, fetched after the ranking; a missing one is not an error. */
function useThumbnails(candidates: Candidate[] | undefined): Record<string, string> {
  const { token } = useConsole();
  const [thumbs, setThumbs] = useState<Record<string, string>>({});
  useEffect(() => {
    setThumbs({});
    if (!candidates?.length) return;
    const controller = new AbortController();
    for (const c of candidates) {
      callOperation('getPerson', token, { idPersona: c.idPersona }, controller.signal)
        .then((r) => {
          const thumb = r.person?.sampleList.find((s) => s.thumbnail)?.thumbnail;
          if (thumb) setThumbs((prev) => ({ ...prev, [c.idPersona]: thumb }));
        })
        .catch(() => undefined);
    }
    return () => controller.abort();
  }, [candidates, token]);
  return thumbs;
}

/** 1:N: who, in the gallery, is this? Ranked candidates with thumbnails and confidence. */
export function IdentifyScreen() {
  const { t, prefs } = useConsole();
  const [face, setFace] = useState<CapturedFace | null>(null);
  const identify = useOperation('identify');
  const thumbs = useThumbnails(identify.data?.candidates);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!face) return;
    await identify.run({
      template: face.template,
      parametros: { maxResults: prefs.maxResults, ...thresholdParam(prefs.identifyThreshold) },
    });
  }

  const data = identify.data;
  const best = data?.candidates[0];
  return (
    <section aria-labelledby="identify-title">
      <h2 id="identify-title">{t('identify.title')}</h2>
      <form onSubmit={(e) => void submit(e)} className="form">
        <FaceInput face={face} onFace={setFace} disabled={identify.busy} />
        <button type="submit" className="primary" disabled={identify.busy || !face}>
          {t('identify.submit')}
        </button>
      </form>
      {identify.busy && <Busy />}
      <ErrorAlert error={identify.error} />
      {data && (
        <Verdict
          tone={data.status === 'IDENTIFY_OK' ? 'ok' : data.status === 'NOT_IDENTIFIED' ? 'bad' : 'warn'}
          title={
            data.status === 'IDENTIFY_OK' && best
              ? t('identify.ok', { id: best.idPersona })
              : data.status === 'NOT_IDENTIFIED'
                ? t('identify.no')
                : t('identify.failed')
          }
          status={data.status}
        >
          {data.threshold !== undefined && (
            <p>
              {t('common.threshold')}: {data.threshold}
            </p>
          )}
          <Motivo motivo={data.motivo} />
        </Verdict>
      )}
      {data && data.candidates.length > 0 && (
        <ol className="candidates" aria-label={t('identify.candidates')} data-testid="candidates">
          {data.candidates.map((c, i) => {
            const thumb = thumbs[c.idPersona];
            const passes = data.threshold === undefined || c.confidence >= data.threshold;
            return (
              <li key={c.idPersona} className={passes ? 'candidate pass' : 'candidate'} data-testid="candidate">
                <span className="rank" aria-label={t('identify.rank')}>
                  {i + 1}
                </span>
                {thumb ? <img className="thumb" src={jpeg(thumb)} alt={c.idPersona} /> : <span className="thumb" />}
                <span className="candidate-id">{c.idPersona}</span>
                <Bar
                  label={t('common.confidence')}
                  value={c.confidence}
                  {...(data.threshold !== undefined ? { mark: data.threshold } : {})}
                />
                <span className="small">
                  {t('common.faP')}: {c.faP}
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
