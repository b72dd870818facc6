import { SCOPES } from '../common/scopes.js';
import type { RunningStation } from '../server/station/index.js';
import type { SealedSecrets } from './secret-store.js';

export const CONSOLE_TOKEN_NAME = 'consola-escritorio';
export const CONSOLE_TOKEN_SECRET = 'console-token';

/**
 * The desktop console's token, with every scope, kept sealed with safeStorage between sessions:
 * reused while the station still accepts it; otherwise (first start, revoked with
 * `enrolla token revoke`, lost keyring) every console token is revoked and a fresh one sealed,
 * so only one is ever live.
 */
export function consoleTokenFor(station: Pick<RunningStation, 'tokens'>, secrets: SealedSecrets): string {
  const kept = readKept(secrets);
  if (kept !== null) {
    const auth = station.tokens.authenticate(`Bearer ${kept}`);
    if (auth.ok && auth.token.name === CONSOLE_TOKEN_NAME) return kept;
  }
  for (const t of station.tokens.list()) {
    if (t.name === CONSOLE_TOKEN_NAME && t.revokedAt === null) station.tokens.revoke(t.id);
  }
  const token = station.tokens.create(CONSOLE_TOKEN_NAME, SCOPES).token;
  secrets.write(CONSOLE_TOKEN_SECRET, token);
  return token;
}

/** A token sealed by another keyring cannot be read: it is simply replaced. */
function readKept(secrets: SealedSecrets): string | null {
  try {
    return secrets.read(CONSOLE_TOKEN_SECRET);
  } catch {
    return null;
  }
}
