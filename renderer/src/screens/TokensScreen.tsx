import { useEffect, useState, type FormEvent } from 'react';
import { SCOPES, type Scope } from '../../../common/scopes.js';
import { useConsole } from '../console-context.js';
import { formatDateTime } from '../i18n.js';
import { Badge, Busy, ErrorAlert } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

/** API tokens: create (the value is shown once), list, revoke. */
export function TokensScreen() {
  const { t, locale } = useConsole();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['verify', 'identify']);
  const [copied, setCopied] = useState(false);
  const list = useOperation('listTokens');
  const create = useOperation('createToken');
  const revoke = useOperation('revokeToken');
  const { run: refresh } = list;

  useEffect(() => {
    void refresh({});
  }, [refresh]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setCopied(false);
    if (await create.run({ name: name.trim(), scopes })) {
      setName('');
      void refresh({});
    }
  }

  async function revokeToken(id: string) {
    create.reset();
    if (await revoke.run({ id })) void refresh({});
  }

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((prev) => (on ? SCOPES.filter((s) => s === scope || prev.includes(s)) : prev.filter((s) => s !== scope)));

  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">{t('tokens.title')}</h2>
      <form onSubmit={(e) => void submit(e)} className="form">
        <label>
          {t('tokens.name')}
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={64}
            pattern="[A-Za-z0-9][A-Za-z0-9 ._\-]*"
          />
        </label>
        <fieldset>
          <legend>{t('tokens.scopes')}</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={create.busy || name.trim() === '' || scopes.length === 0}>
          {t('tokens.create')}
        </button>
      </form>
      {create.busy && <Busy />}
      <ErrorAlert error={create.error ?? revoke.error} />
      {create.data && (
        <div className="verdict verdict-ok" role="status">
          <p>{t('tokens.created')}</p>
          <p className="mono token-value" data-testid="new-token">
            {create.data.token}
          </p>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard
                ?.writeText(create.data?.token ?? '')
                .then(() => setCopied(true))
                .catch(() => undefined)
            }
          >
            {copied ? t('tokens.copied') : t('tokens.copy')}
          </button>
        </div>
      )}
      {list.busy && !list.data && <Busy label={t('common.loading')} />}
      <ErrorAlert error={list.error} />
      {list.data && (
        <table className="list" data-testid="tokens-table">
          <thead>
            <tr>
              <th scope="col">{t('tokens.name')}</th>
              <th scope="col">{t('tokens.scopes')}</th>
              <th scope="col">{t('gallery.created')}</th>
              <th scope="col">{t('tokens.lastUsed')}</th>
              <th scope="col">{t('tokens.state')}</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {list.data.tokens.map((tok) => (
              <tr key={tok.id} data-token={tok.name}>
                <th scope="row">{tok.name}</th>
                <td>{tok.scopes.join(', ')}</td>
                <td>{formatDateTime(locale, tok.createdAt)}</td>
                <td>{tok.lastUsedAt ? formatDateTime(locale, tok.lastUsedAt) : t('tokens.never')}</td>
                <td>
                  <Badge on={tok.revokedAt === null}>{tok.revokedAt === null ? t('tokens.active') : t('tokens.revoked')}</Badge>
                </td>
                <td>
                  {tok.revokedAt === null && (
                    <button
                      type="button"
                      className="danger"
                      disabled={revoke.busy}
                      aria-label={`${t('tokens.revoke')} ${tok.name}`}
                      onClick={() => void revokeToken(tok.id)}
                    >
                      {t('tokens.revoke')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
