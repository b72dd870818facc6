import { SCOPES } from '../common/scopes.js';
import type { RunningStation } from '../server/station.js';

const CONSOLE_TOKEN_NAME = 'consola-escritorio';

/**
 * A fresh token for this session of the desktop console, with every scope; the previous
 * session's console tokens are revoked so that only one is ever live.
 */
export function consoleTokenFor(station: RunningStation): string {
  for (const t of station.tokens.list()) {
    if (t.name === CONSOLE_TOKEN_NAME && t.revokedAt === null) station.tokens.revoke(t.id);
  }
  return station.tokens.create(CONSOLE_TOKEN_NAME, SCOPES).token;
}
