import type { ResponseOf } from '../../../common/api/operations.js';
import { useConsole } from '../console-context.js';
import { labelOf } from '../labels.js';
import { Badge, jpeg, Motivo, Verdict } from '../ui/status.js';

type Dni = ResponseOf<'extractDni'>;
type Info = NonNullable<Dni['documentInfo']>;

type DateParts = { day: number; month: number; year: number } | null;
const date = (d: DateParts) => (d ? `${String(d.day).padStart(2, '0')}/${String(d.month).padStart(2, '0')}/${d.year}` : null);

/** The value shown for each field the reader reports details for. */
function fieldValue(info: Info, name: string): string | null {
  const value = (info as unknown as Record<string, unknown>)[name];
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return date(value as DateParts);
  return String(value);
}

/** A DNI reading: verdict, fields with source and validity, portrait, barcode and MRZ. */
export function DniResult({ data, compact = false }: { data: Dni; compact?: boolean }) {
  const { t, locale } = useConsole();
  const info = data.documentInfo;
  return (
    <div className="dni-result">
      <Verdict
        tone={data.status === 'OK' ? 'ok' : data.status === 'SPOOF' ? 'bad' : 'warn'}
        title={data.status === 'OK' ? t('dni.ok') : t('dni.bad', { status: data.status })}
        status={data.status}
      >
        {data.suggestedAction !== 'NONE' && (
          <p>
            {t('dni.action')}: {labelOf(locale, 'value', data.rescanSide ? `RESCAN_${data.rescanSide}` : data.suggestedAction)}
          </p>
        )}
        <Motivo motivo={data.motivo} />
      </Verdict>
      {info && (
        <div className="columns">
          <table className="fields" data-testid="dni-fields">
            <caption>{t('dni.fields')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('dni.field')}</th>
                <th scope="col">{t('dni.value')}</th>
                <th scope="col">{t('dni.source')}</th>
                <th scope="col">{t('dni.valid')}</th>
                <th scope="col">{t('dni.agreement')}</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(info.fields).map(([name, detail]) => (
                <tr key={name} data-field={name}>
                  <th scope="row">{labelOf(locale, 'field', name)}</th>
                  <td>{fieldValue(info, name) ?? t('common.none')}</td>
                  <td>{detail.source}</td>
                  <td>
                    <Badge on={detail.valid}>{detail.valid ? t('common.yes') : t('common.no')}</Badge>
                  </td>
                  <td title={detail.motivo}>{labelOf(locale, 'value', detail.agreement)}</td>
                </tr>
              ))}
              {(['address', 'placeOfBirth'] as const)
                .filter((name) => info[name] && !(name in info.fields))
                .map((name) => (
                  <tr key={name} data-field={name}>
                    <th scope="row">{labelOf(locale, 'field', name)}</th>
                    <td>{info[name]}</td>
                    <td>OCR</td>
                    <td colSpan={2}>
                      {t('common.confidence')} {Math.round(info.addressConfidence)}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
          {info.face && (
            <figure>
              <img className="portrait" src={jpeg(info.face)} alt={t('dni.portrait')} data-testid="dni-portrait" />
              <figcaption>{t('dni.portrait')}</figcaption>
            </figure>
          )}
        </div>
      )}
      {!compact && (
        <>
          <div className="columns">
            {data.frontImage && (
              <figure>
                <img className="card" src={jpeg(data.frontImage)} alt={t('dni.front')} />
                <figcaption>{t('dni.front')}</figcaption>
              </figure>
            )}
            {data.backImage && (
              <figure>
                <img className="card" src={jpeg(data.backImage)} alt={t('dni.back')} />
                <figcaption>{t('dni.back')}</figcaption>
              </figure>
            )}
          </div>
          <section aria-label={t('dni.pdf417')} data-testid="dni-pdf417">
            <h3>
              {t('dni.pdf417')}:{' '}
              <Badge on={data.pdf417Detected}>{data.pdf417Detected ? t('dni.detected') : t('dni.notDetected')}</Badge>{' '}
              {data.pdf417 && (
                <Badge on={data.pdf417.valid}>
                  {t('dni.valid')}: {data.pdf417.valid ? t('common.yes') : t('common.no')}
                </Badge>
              )}
            </h3>
            {data.pdf417 && (
              <>
                <p className="mono">{data.pdf417.raw}</p>
                <p>
                  {data.pdf417.layout ?? t('common.none')} · {data.pdf417.decoder} · {data.pdf417.charset}
                </p>
                {data.pdf417.problems.length > 0 && (
                  <p>
                    {t('dni.problems')}: {data.pdf417.problems.join('; ')}
                  </p>
                )}
              </>
            )}
          </section>
          <section aria-label={t('dni.mrz')} data-testid="dni-mrz">
            <h3>
              {t('dni.mrz')}: <Badge on={data.mrzDetected}>{data.mrzDetected ? t('dni.detected') : t('dni.notDetected')}</Badge>{' '}
              {data.mrz && (
                <Badge on={data.mrz.valid}>
                  {t('dni.valid')}: {data.mrz.valid ? t('common.yes') : t('common.no')}
                </Badge>
              )}
            </h3>
            {data.mrz && (
              <>
                <pre className="mono">{data.mrz.lines.join('\n')}</pre>
                <p>
                  {t('dni.checks')}:{' '}
                  {Object.entries(data.mrz.checks).map(([name, c]) => (
                    <Badge key={name} on={c.valid}>
                      {name}
                    </Badge>
                  ))}
                </p>
                {data.mrz.problems.length > 0 && (
                  <p>
                    {t('dni.problems')}: {data.mrz.problems.join('; ')}
                  </p>
                )}
              </>
            )}
          </section>
        </>
      )}
    </div>
  );
}
