import type { AuditEntry } from '../../common/api/admin-schemas.js';
import type { Scope } from '../../common/scopes.js';

export interface TokenRecord {
  id: string;
  name: string;
  /** SHA-256 of the secret part; the token itself is never stored. */
  secretHash: Buffer;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The station's API tokens. Every write is durable when the call returns. */
export interface TokenStore {
  insertToken(token: TokenRecord): void;
  findToken(id: string): TokenRecord | null;
  listTokens(): TokenRecord[];
  revokeToken(id: string, at: string): boolean;
  touchToken(id: string, at: string): void;
}

/** The station's own record of what it did (docs/security.md, audit log). */
export interface AuditLog {
  appendAudit(entry: Omit<AuditEntry, 'seq'>): void;
  listAudit(query: { limit: number; beforeSeq?: number | undefined }): AuditEntry[];
}

/** A station's credentials and its audit log: always its own SQLite file, whichever gallery it uses. */
export type StationRecords = TokenStore & AuditLog;
