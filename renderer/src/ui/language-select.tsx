import { LOCALES, type Locale, type Translate } from '../i18n.js';

const LANGUAGE_NAMES: Record<Locale, string> = { 'es-AR': 'Español (AR)', en: 'English' };

/** Used before and after login, so it takes its words as props rather than from the console context. */
export function LanguageSelect({ locale, t, onLocale }: { locale: Locale; t: Translate; onLocale: (locale: Locale) => void }) {
  return (
    <label className="lang">
      {t('app.language')}
      <select value={locale} onChange={(e) => onLocale(e.target.value as Locale)}>
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
