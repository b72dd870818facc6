import { createContext, useContext } from 'react';
import type { Locale, Translate } from './i18n.js';
import type { DeskPrefs } from './prefs.js';

/** What every screen needs: the token, the language and the desk's preferences. */
export interface ConsoleContextValue {
  token: string;
  locale: Locale;
  t: Translate;
  prefs: DeskPrefs;
  setPrefs: (prefs: DeskPrefs) => void;
  /** The station refused the token (revoked, expired): back to the login screen. */
  onUnauthorized: () => void;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole fuera de ConsoleContext');
  return value;
}
