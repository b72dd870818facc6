import { useState, type FormEvent } from 'react';
import type { ResponseOf } from '../../../common/api/operations.js';
import type { CapturedDocument, CapturedFace } from '../capture/index.js';
import { useConsole } from '../console-context.js';
import { DocumentInput, FaceInput } from '../ui/face-input.js';
import { Bar, Busy, ErrorAlert, Motivo, Verdict } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';
import { DniResult } from './DniResult.js';

type Enrolled = ResponseOf<'enroll'>;

function EnrollVerdict({ data }: { data: Enrolled }) {
  const { t, locale } = useConsole();
  if (data.status === 'SUCCESS') {
    return (
      <Verdict tone="ok" title={t('enroll.ok')} status={data.status}>
        <p>
          {t('enroll.okDetail', {
            id: data.idPersona,
            n: data.samples ?? 0,
            q: (data.quality ?? 0).toLocaleString(locale, { maximumFractionDigits: 1 }),
          })}
        </p>
      </Verdict>
    );
  }
  const title =
    data.status === 'DUPLICATED_TEMPLATE'
      ? t('enroll.duplicated', { id: data.duplicatedIdPersona ?? '?' })
      : data.status === 'DUPLICATED_SUBJECT_ID'
        ? t('enroll.duplicatedId')
        : t('enroll.rejected');
  return (
    <Verdict tone="bad" title={title} status={data.status}>
      <Motivo motivo={data.motivo} />
    </Verdict>
  );
}

/** Enrollment: optionally read the DNI first to fill the person's id, then the face. */
export function EnrollScreen() {
  const { t } = useConsole();
  const [idPersona, setIdPersona] = useState('');
  const [face, setFace] = useState<CapturedFace | null>(null);
  const [replace, setReplace] = useState(false);
  const [duplicates, setDuplicates] = useState(true);
  const dni = useOperation('extractDni');
  const enroll = useOperation('enroll');
  const compare = useOperation('matchDniFace');
  const [card, setCard] = useState<CapturedDocument | null>(null);

  async function readDni(doc: CapturedDocument) {
    setCard(doc);
    compare.reset();
    const data = await dni.run({ template: doc.template });
    const number = data?.documentInfo?.documentNumber;
    if (number) setIdPersona(number);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!face) return;
    await enroll.run({
      idPersona: idPersona.trim(),
      template: face.template,
      parametros: { duplicateSearch: duplicates, replaceSamples: replace },
    });
  }

  return (
    <section aria-labelledby="enroll-title">
      <h2 id="enroll-title">{t('enroll.title')}</h2>
      <details className="panel">
        <summary>{t('enroll.dni')}</summary>
        <DocumentInput onDocument={(doc) => void readDni(doc)} />
        {dni.busy && <Busy />}
        <ErrorAlert error={dni.error} />
        {dni.data && <DniResult data={dni.data} compact />}
      </details>
      <form onSubmit={(e) => void submit(e)} className="form">
        <label>
          {t('common.idPersona')}
          <input value={idPersona} onChange={(e) => setIdPersona(e.target.value)} required maxLength={128} />
        </label>
        <FaceInput
          face={face}
          onFace={(f) => {
            setFace(f);
            compare.reset();
          }}
          disabled={enroll.busy}
        />
        {card && face && dni.data?.documentInfo?.face && (
          <button
            type="button"
            disabled={compare.busy}
            onClick={() => void compare.run({ documentTemplate: card.template, template: face.template })}
          >
            {t('enroll.compare')}
          </button>
        )}
        {compare.busy && <Busy />}
        <ErrorAlert error={compare.error} />
        {compare.data && (
          <Verdict
            tone={compare.data.status === 'CHECK_CONFIDENCE' ? 'ok' : compare.data.status === 'NOT_VERIFIED' ? 'bad' : 'warn'}
            title={
              compare.data.status === 'CHECK_CONFIDENCE'
                ? t('enroll.compareOk')
                : compare.data.status === 'NOT_VERIFIED'
                  ? t('enroll.compareNo')
                  : t('enroll.compareFailed')
            }
            status={compare.data.status}
          >
            {compare.data.confidence !== undefined && (
              <Bar
                label={t('common.confidence')}
                value={compare.data.confidence}
                {...(compare.data.threshold !== undefined ? { mark: compare.data.threshold } : {})}
              />
            )}
            <Motivo motivo={compare.data.motivo} />
          </Verdict>
        )}
        <label className="check">
          <input type="checkbox" checked={duplicates} onChange={(e) => setDuplicates(e.target.checked)} />
          {t('enroll.duplicates')}
        </label>
        <label className="check">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} />
          {t('enroll.replace')}
        </label>
        <button type="submit" className="primary" disabled={enroll.busy || !face || idPersona.trim() === ''}>
          {t('enroll.submit')}
        </button>
      </form>
      {enroll.busy && <Busy />}
      <ErrorAlert error={enroll.error} />
      {enroll.data && <EnrollVerdict data={enroll.data} />}
    </section>
  );
}
