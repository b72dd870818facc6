import type { TokenService } from '../auth/index.js';
import type { StationConfig } from '../config/index.js';
import { thresholdForFmr } from '../matching/index.js';
import type { OperationHandlers } from './operation-handler.js';
import type { AuditLog } from '../storage/index.js';
import type { BackupsStatus } from '../../common/api/admin-schemas.js';

export interface StationInfo {
  version: string;
  startedAt: string;
  engines: () => Record<string, 'ready' | 'loading' | 'unavailable'>;
  tls: { enabled: boolean; fingerprint256: string | null };
  config: Pick<StationConfig, 'host' | 'matching'>;
  /** The port actually listened on (the configured one may be 0: any free port). */
  port: () => number;
  persons: () => Promise<number>;
  backups: () => BackupsStatus;
  /** A copy of the station's database now, into its backups folder. */
  createBackup: () => Promise<{ file: string; persons: number; samples: number }>;
}

const LOOPBACK = /^(127\.|::1$|localhost$)/;

/** Tokens, audit log and station status, for holders of the `admin` scope. */
export function adminOperations(audit: AuditLog, tokens: TokenService, info: StationInfo): OperationHandlers {
  return {
    createToken: ({ request }) => ({ status: 'SUCCESS', ...tokens.create(request.name, request.scopes) }),
    listTokens: () => ({ status: 'SUCCESS', tokens: tokens.list() }),
    revokeToken: ({ request }) => ({ status: tokens.revoke(request.id) ? 'SUCCESS' : 'INEXISTENT' }),
    listAudit: ({ request }) => ({ status: 'SUCCESS', entries: audit.listAudit(request) }),
    stationStatus: async () => ({
      status: 'SUCCESS',
      version: info.version,
      startedAt: info.startedAt,
      persons: await info.persons(),
      engines: info.engines(),
      tls: info.tls,
      backups: info.backups(),
    }),
    createBackup: async () => ({ status: 'SUCCESS', ...(await info.createBackup()) }),
    stationSettings: () => ({
      status: 'SUCCESS',
      network: {
        host: info.config.host,
        port: info.port(),
        lanExposed: !LOOPBACK.test(info.config.host),
        tls: info.tls.enabled,
      },
      matching: {
        ...info.config.matching,
        verifyThreshold: Math.round(thresholdForFmr(info.config.matching.verifyFmr) * 10) / 10,
      },
    }),
  };
}
