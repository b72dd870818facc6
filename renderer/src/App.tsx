import { useCallback, useEffect, useMemo, useState } from 'react';
import { ConsoleContext, type ConsoleContextValue } from './console-context.js';
import { translator, type Locale } from './i18n.js';
import { loadLocale, loadPrefs, saveLocale, savePrefs, type DeskPrefs } from './prefs.js';
import { LoginScreen } from './screens/LoginScreen.js';
import { Shell } from './screens/Shell.js';
import { clearToken, loadToken, saveToken } from './session.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => loadToken());
  const [locale, setLocale] = useState<Locale>(() => loadLocale());
  const [prefs, setPrefsState] = useState<DeskPrefs>(() => loadPrefs());
  const t = useMemo(() => translator(locale), [locale]);

  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const changeLocale = useCallback((next: Locale) => {
    saveLocale(next);
    setLocale(next);
  }, []);
  const logout = useCallback(() => {
    clearToken();
    setToken(null);
  }, []);
  const setPrefs = useCallback((next: DeskPrefs) => {
    savePrefs(next);
    setPrefsState(next);
  }, []);

  const value = useMemo<ConsoleContextValue | null>(
    () => (token ? { token, locale, t, prefs, setPrefs, onUnauthorized: logout } : null),
    [token, locale, t, prefs, setPrefs, logout],
  );

  if (!value) {
    return (
      <LoginScreen
        t={t}
        locale={locale}
        onLocale={changeLocale}
        onLogin={(next) => {
          saveToken(next);
          setToken(next);
        }}
      />
    );
  }
  return (
    <ConsoleContext.Provider value={value}>
      <Shell onLogout={logout} onLocale={changeLocale} />
    </ConsoleContext.Provider>
  );
}
