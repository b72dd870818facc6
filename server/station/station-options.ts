import type { Logger } from '../log/index.js';

/** How the station is started, beside its configuration: by a host (the desktop shell) or by tests. */
export interface StationOptions {
  logger?: Logger;
  /** Built console to serve at `/`; defaults to the package's dist/renderer. */
  consoleDir?: string | null;
  validateResponses?: boolean;
  /** The data key, when the host keeps it (Electron's safeStorage); otherwise the key file or ENROLLA_DATA_KEY. */
  dataKey?: Buffer;
  /** With a shared gallery, during a fleet key rotation: the key being replaced; otherwise ENROLLA_DATA_KEY_PREVIOUS. */
  previousDataKey?: Buffer | null;
  /** Wait for the engines' models before answering (tests); otherwise requests queue until they load. */
  waitForEngines?: boolean;
  /** When scheduled backups (`backups.enabled`) first look, and how often (tests); otherwise a minute and ten. */
  backupChecks?: { firstAfterMs: number; everyMs: number };
}
