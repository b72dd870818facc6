import type { Locale } from './i18n.js';

/**
 * Per-desk preferences kept in this browser (language too): thresholds sent as request parameters (unset means
 * the station's default) and the camera to use. They never reach the station's configuration.
 */
export interface DeskPrefs {
  verifyThreshold?: number;
  identifyThreshold?: number;
  spoofThreshold?: number;
  maxResults: number;
  deviceId?: string;
}

const KEY = 'enrolla.prefs';
const DEFAULTS: DeskPrefs = { maxResults: 5 };

function finiteIn(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
}

export function loadPrefs(): DeskPrefs {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    if (parsed && typeof parsed === 'object') raw = parsed as Record<string, unknown>;
  } catch {
    // A damaged entry falls back to the defaults.
  }
  const prefs: DeskPrefs = { maxResults: finiteIn(raw.maxResults, 1, 100) ?? DEFAULTS.maxResults };
  const verify = finiteIn(raw.verifyThreshold, 0, 100);
  const identify = finiteIn(raw.identifyThreshold, 0, 100);
  const spoof = finiteIn(raw.spoofThreshold, 0, 100);
  if (verify !== undefined) prefs.verifyThreshold = verify;
  if (identify !== undefined) prefs.identifyThreshold = identify;
  if (spoof !== undefined) prefs.spoofThreshold = spoof;
  if (typeof raw.deviceId === 'string' && raw.deviceId !== '') prefs.deviceId = raw.deviceId;
  return prefs;
}

export function savePrefs(prefs: DeskPrefs): void {
  localStorage.setItem(KEY, JSON.stringify(prefs));
}

/** `{ threshold }` when the desk overrides the station's default, otherwise nothing. */
export function thresholdParam(value: number | undefined): { threshold?: number } {
  return value === undefined ? {} : { threshold: value };
}

const LOCALE_KEY = 'enrolla.locale';

/** The operator's language choice outlives the session: it belongs to the desk, not the token. */
export function loadLocale(): Locale {
  const saved = localStorage.getItem(LOCALE_KEY);
  return saved === 'en' || saved === 'es-AR' ? saved : 'es-AR';
}

export function saveLocale(locale: Locale): void {
  localStorage.setItem(LOCALE_KEY, locale);
}
