import { useState, type FormEvent } from 'react';
import { callOperation, StationError } from '../api/client.js';
import type { Locale, Translate } from '../i18n.js';
import { LanguageSelect } from '../ui/language-select.js';

/** The operator pastes an API token; it is checked against the station before it is kept. */
export function LoginScreen({
  onLogin,
  t,
  locale,
  onLocale,
}: {
  onLogin: (token: string) => void;
  t: Translate;
  locale: Locale;
  onLocale: (locale: Locale) => void;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const token = value.trim();
    try {
      await callOperation('listPersons', token, { limit: 1 });
      onLogin(token);
    } catch (e) {
      // A token without the gallery scope is still a valid token.
      if (e instanceof StationError && e.codigo === 403) onLogin(token);
      else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <LanguageSelect locale={locale} t={t} onLocale={onLocale} />
      <h1>Enrolla</h1>
      <p>{t('app.subtitle')}</p>
      <form onSubmit={submit}>
        <label htmlFor="token">{t('login.token')}</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder="enr_…"
        />
        <button type="submit" disabled={busy || value.trim() === ''}>
          {busy ? t('login.checking') : t('login.submit')}
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
