import type { TokenService } from '../auth/tokens.js';
import type { OperationHandlers } from '../http/operation-route.js';
import type { StationStore } from '../store/store.js';

export interface StationInfo {
  version: string;
  startedAt: string;
  engines: () => Record<string, 'ready' | 'loading' | 'unavailable'>;
  tls: { enabled: boolean; fingerprint256: string | null };
  persons: () => Promise<number>;
}

/** Tokens, audit log and station status, for holders of the `admin` scope. */
export function adminOperations(store: StationStore, tokens: TokenService, info: StationInfo): OperationHandlers {
  return {
    createToken: ({ request }) => ({ status: 'SUCCESS', ...tokens.create(request.name, request.scopes) }),
    listTokens: () => ({ status: 'SUCCESS', tokens: tokens.list() }),
    revokeToken: ({ request }) => ({ status: tokens.revoke(request.id) ? 'SUCCESS' : 'INEXISTENT' }),
    listAudit: ({ request }) => ({ status: 'SUCCESS', entries: store.listAudit(request) }),
    stationStatus: async () => ({
      status: 'SUCCESS',
      version: info.version,
      startedAt: info.startedAt,
      persons: await info.persons(),
      engines: info.engines(),
      tls: info.tls,
    }),
  };
}
