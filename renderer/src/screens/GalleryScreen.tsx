import { useEffect, useState } from 'react';
import { useConsole } from '../console-context.js';
import { formatDateTime } from '../i18n.js';
import { Busy, ErrorAlert, jpeg } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

const PAGE = 100;

/** One person: samples with thumbnails and quality, and deletion behind a confirmation. */
function PersonPanel({ idPersona, onDeleted }: { idPersona: string; onDeleted: (message: string) => void }) {
  const { t, locale } = useConsole();
  const person = useOperation('getPerson');
  const remove = useOperation('deletePerson');
  const [confirming, setConfirming] = useState(false);
  const { run } = person;

  useEffect(() => {
    setConfirming(false);
    void run({ idPersona });
  }, [idPersona, run]);

  async function confirmDelete() {
    const result = await remove.run({ idPersona });
    if (result) onDeleted(t('gallery.deleted', { id: result.idPersona, n: result.samplesDeleted }));
  }

  const p = person.data?.person;
  return (
    <section className="panel" aria-label={idPersona} data-testid="person-panel">
      <h3>{idPersona}</h3>
      {person.busy && <Busy label={t('common.loading')} />}
      <ErrorAlert error={person.error ?? remove.error} />
      {person.data && !p && <p>{t('gallery.inexistent')}</p>}
      {p && (
        <>
          <dl className="kv">
            <dt>{t('common.samples')}</dt>
            <dd>{p.samples}</dd>
            <dt>{t('gallery.created')}</dt>
            <dd>{formatDateTime(locale, p.createdAt)}</dd>
            <dt>{t('gallery.updated')}</dt>
            <dd>{formatDateTime(locale, p.updatedAt)}</dd>
          </dl>
          <ul className="samples">
            {p.sampleList.map((s) => (
              <li key={s.id}>
                {s.thumbnail ? (
                  <img className="thumb" src={jpeg(s.thumbnail)} alt={`${idPersona} #${s.id}`} />
                ) : (
                  <span className="thumb" />
                )}
                <span>
                  {t('common.quality')} {Math.round(s.quality)}
                </span>
              </li>
            ))}
          </ul>
          {!confirming ? (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              {t('gallery.delete')}
            </button>
          ) : (
            <p className="confirm">
              <button type="button" className="danger" disabled={remove.busy} onClick={() => void confirmDelete()}>
                {t('gallery.confirmDelete', { id: idPersona })}
              </button>{' '}
              <button type="button" onClick={() => setConfirming(false)}>
                {t('common.cancel')}
              </button>
            </p>
          )}
          {remove.busy && <Busy />}
        </>
      )}
    </section>
  );
}

/** Who is enrolled, searchable by id prefix. */
export function GalleryScreen() {
  const { t } = useConsole();
  const [filtro, setFiltro] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const list = useOperation('listPersons');
  const { run } = list;

  useEffect(() => {
    const handle = setTimeout(() => void run({ limit, ...(filtro.trim() ? { filtro: filtro.trim() } : {}) }), 200);
    return () => clearTimeout(handle);
  }, [filtro, limit, reload, run]);

  const data = list.data;
  return (
    <section aria-labelledby="gallery-title">
      <h2 id="gallery-title">{t('gallery.title')}</h2>
      <div className="toolbar">
        <label>
          {t('gallery.search')}
          <input type="search" value={filtro} onChange={(e) => setFiltro(e.target.value)} maxLength={128} />
        </label>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          {t('common.refresh')}
        </button>
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {list.busy && !data && <Busy label={t('common.loading')} />}
      <ErrorAlert error={list.error} />
      {data && (
        <>
          <p data-testid="persons-total">{data.total === 1 ? t('gallery.totalOne') : t('gallery.total', { n: data.total })}</p>
          {data.persons.length === 0 && <p>{t('gallery.empty')}</p>}
          <div className="columns">
            <ul className="persons">
              {data.persons.map((p) => (
                <li key={p.idPersona} className={open === p.idPersona ? 'selected' : undefined}>
                  <span>{p.idPersona}</span>
                  <span className="small">
                    {p.samples} {t('common.samples').toLowerCase()}
                  </span>
                  <button type="button" aria-label={`${t('gallery.open')} ${p.idPersona}`} onClick={() => setOpen(p.idPersona)}>
                    {t('gallery.open')}
                  </button>
                </li>
              ))}
            </ul>
            {open && (
              <PersonPanel
                idPersona={open}
                onDeleted={(message) => {
                  setOpen(null);
                  setNotice(message);
                  setReload((n) => n + 1);
                }}
              />
            )}
          </div>
          {data.total > data.persons.length && limit < 500 && (
            <button type="button" onClick={() => setLimit((l) => Math.min(500, l + PAGE))}>
              {t('common.more')}
            </button>
          )}
        </>
      )}
    </section>
  );
}
