import type { ResponseOf } from '../../../common/api/operations.js';
import { useConsole } from '../console-context.js';
import { labelOf } from '../labels.js';
import { Badge, Bar } from '../ui/status.js';

type Properties = NonNullable<ResponseOf<'extractFace'>['properties']>;

/** Attributes, emotions, traits and the quality gates, as bars and badges. */
export function FaceProperties({ properties }: { properties: Properties }) {
  const { t, locale } = useConsole();
  const { quality, traits, emotion, gender, expression, position } = properties;
  return (
    <div className="properties">
      {quality && (
        <section aria-label={t('common.quality')} data-testid="face-quality">
          <Bar label={t('common.quality')} value={quality.score} />
          {quality.failed.length === 0 ? (
            <p>
              <Badge on>{t('extract.allPassed')}</Badge>
            </p>
          ) : (
            <p>
              {t('extract.failedGates')}:{' '}
              {quality.failed.map((f) => (
                <Badge key={f} on={false}>
                  {f}
                </Badge>
              ))}
            </p>
          )}
        </section>
      )}
      <section aria-label={t('extract.attributes')}>
        <h3>{t('extract.attributes')}</h3>
        <dl className="kv">
          <dt>{t('extract.age')}</dt>
          <dd>{properties.age !== null ? Math.round(properties.age) : t('common.none')}</dd>
          <dt>{t('extract.gender')}</dt>
          <dd>{gender ? `${labelOf(locale, 'value', gender.type)} (${Math.round(gender.confidence)})` : t('common.none')}</dd>
          <dt>{t('extract.expression')}</dt>
          <dd title={expression?.motivo}>
            {expression
              ? `${labelOf(locale, 'value', expression.type)} (${Math.round(expression.confidence)})`
              : t('common.none')}
          </dd>
          <dt>{t('extract.pose')}</dt>
          <dd>
            {Math.round(position.yaw)}° / {Math.round(position.pitch)}° / {Math.round(position.roll)}°
          </dd>
          <dt>{t('common.confidence')}</dt>
          <dd>{Math.round(properties.confidence)}</dd>
        </dl>
      </section>
      {emotion && (
        <section aria-label={t('extract.emotions')}>
          <h3>{t('extract.emotions')}</h3>
          {Object.entries(emotion).map(([name, value]) => (
            <Bar key={name} label={labelOf(locale, 'emotion', name)} value={value} />
          ))}
        </section>
      )}
      {traits && (
        <section aria-label={t('extract.traits')} data-testid="face-traits">
          <h3>{t('extract.traits')}</h3>
          <p>
            {Object.entries(traits)
              .filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean')
              .map(([name, on]) => (
                <Badge key={name} on={on}>
                  {labelOf(locale, 'trait', name)}
                </Badge>
              ))}
          </p>
          {Object.entries(traits)
            .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
            .map(([name, value]) => (
              <Bar key={name} label={labelOf(locale, 'trait', name)} value={value} />
            ))}
          {traits.motivo && <p data-testid="face-traits-motivo">{traits.motivo}</p>}
        </section>
      )}
    </div>
  );
}
