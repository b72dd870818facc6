import type { JSX } from 'react';
import { useConsole } from '../console-context.js';
import type { Locale } from '../i18n.js';
import { ROUTES, useRoute, type Route } from '../router.js';
import { LanguageSelect } from '../ui/language-select.js';
import { AntispoofScreen } from './AntispoofScreen.js';
import { AuditScreen } from './AuditScreen.js';
import { DniScreen } from './DniScreen.js';
import { EnrollScreen } from './EnrollScreen.js';
import { ExtractScreen } from './ExtractScreen.js';
import { GalleryScreen } from './GalleryScreen.js';
import { IdentifyScreen } from './IdentifyScreen.js';
import { SettingsScreen } from './SettingsScreen.js';
import { TokensScreen } from './TokensScreen.js';
import { VerifyScreen } from './VerifyScreen.js';

const SCREENS: Record<Route, () => JSX.Element> = {
  enrolar: EnrollScreen,
  verificar: VerifyScreen,
  identificar: IdentifyScreen,
  extraer: ExtractScreen,
  antispoof: AntispoofScreen,
  dni: DniScreen,
  galeria: GalleryScreen,
  tokens: TokensScreen,
  ajustes: SettingsScreen,
  auditoria: AuditScreen,
};

/** Header, navigation and the current screen. */
export function Shell({ onLogout, onLocale }: { onLogout: () => void; onLocale: (locale: Locale) => void }) {
  const { t, locale } = useConsole();
  const route = useRoute();
  const Screen = SCREENS[route];
  return (
    <div className="shell">
      <header className="topbar">
        <h1>Enrolla</h1>
        <span className="subtitle">{t('app.subtitle')}</span>
        <LanguageSelect locale={locale} t={t} onLocale={onLocale} />
        <button type="button" onClick={onLogout}>
          {t('app.logout')}
        </button>
      </header>
      <nav aria-label={t('app.nav')} className="nav">
        {ROUTES.map((r) => (
          <a key={r} href={`#/${r}`} aria-current={r === route ? 'page' : undefined}>
            {t(`nav.${r}`)}
          </a>
        ))}
      </nav>
      <main key={route}>
        <Screen />
      </main>
    </div>
  );
}
