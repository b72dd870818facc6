import { useState, type FormEvent } from 'react';
import type { CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';
import { FaceInput } from '../ui/face-input.js';
import { Busy, ErrorAlert, jpeg, Motivo, Verdict } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';
import { FaceOverlay } from './FaceOverlay.js';
import { FaceProperties } from './FaceProperties.js';

/** What the engine sees in a face: landmarks, attributes, traits and which quality gate failed. */
export function ExtractScreen() {
  const { t } = useConsole();
  const [face, setFace] = useState<CapturedFace | null>(null);
  const extract = useOperation('extractFace');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (face) await extract.run({ template: face.template });
  }

  const data = extract.data;
  return (
    <section aria-labelledby="extract-title">
      <h2 id="extract-title">{t('extract.title')}</h2>
      <form onSubmit={(e) => void submit(e)} className="form">
        <FaceInput face={face} onFace={setFace} disabled={extract.busy} maxFrames={1} />
        <button type="submit" className="primary" disabled={extract.busy || !face}>
          {t('extract.submit')}
        </button>
      </form>
      {extract.busy && <Busy />}
      <ErrorAlert error={extract.error} />
      {data && (
        <Verdict
          tone={data.status === 'OK' ? 'ok' : 'bad'}
          title={data.status === 'OK' ? t('extract.ok') : t('extract.bad', { status: data.status })}
          status={data.status}
        >
          <Motivo motivo={data.motivo} />
        </Verdict>
      )}
      {data?.properties && (
        <div className="columns">
          <div>
            {data.faceImage && <FaceOverlay image={data.faceImage} properties={data.properties} label={t('extract.photo')} />}
            {data.face && (
              <figure>
                <img className="portrait" src={jpeg(data.face.image)} alt={t('extract.portrait')} />
                <figcaption>{t('extract.portrait')}</figcaption>
              </figure>
            )}
          </div>
          <FaceProperties properties={data.properties} />
        </div>
      )}
    </section>
  );
}
