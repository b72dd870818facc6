import { useEffect, useState } from 'react';
import type { AuditEntry } from '../../../common/api/admin-schemas.js';
import { useConsole } from '../console-context.js';
import { formatDateTime } from '../i18n.js';
import { Busy, ErrorAlert } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

const PAGE = 100;

/** Who did what and when (never biometric data), newest first, paged backwards. */
export function AuditScreen() {
  const { t, locale } = useConsole();
  const audit = useOperation('listAudit');
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [done, setDone] = useState(false);
  const { run } = audit;

  async function load(beforeSeq?: number) {
    const result = await run({ limit: PAGE, ...(beforeSeq ? { beforeSeq } : {}) });
    if (!result) return;
    setEntries((prev) => (beforeSeq ? [...prev, ...result.entries] : result.entries));
    setDone(result.entries.length < PAGE);
  }

  useEffect(() => {
    void run({ limit: PAGE }).then((result) => {
      if (!result) return;
      setEntries(result.entries);
      setDone(result.entries.length < PAGE);
    });
  }, [run]);

  const last = entries[entries.length - 1];
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{t('audit.title')}</h2>
      <button type="button" onClick={() => void load()}>
        {t('common.refresh')}
      </button>
      {audit.busy && <Busy label={t('common.loading')} />}
      <ErrorAlert error={audit.error} />
      <table className="list" data-testid="audit-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('audit.at')}</th>
            <th scope="col">{t('audit.operation')}</th>
            <th scope="col">{t('audit.token')}</th>
            <th scope="col">{t('common.idPersona')}</th>
            <th scope="col">{t('audit.outcome')}</th>
            <th scope="col">{t('audit.http')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.seq} className={e.httpStatus >= 400 ? 'row-bad' : undefined}>
              <td>{e.seq}</td>
              <td>{formatDateTime(locale, e.at)}</td>
              <td>{e.operation}</td>
              <td>{e.tokenName ?? t('common.none')}</td>
              <td>{e.idPersona ?? t('common.none')}</td>
              <td>{e.outcome}</td>
              <td>{e.httpStatus}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!done && last && (
        <button type="button" disabled={audit.busy} onClick={() => void load(last.seq)}>
          {t('common.more')}
        </button>
      )}
    </section>
  );
}
