import type Database from 'better-sqlite3';
import type { AuditEntry } from '../../../common/api/admin-schemas.js';
import type { Scope } from '../../../common/scopes.js';
import type { StationRecords, TokenRecord } from '../records.js';
import { sqliteFaults } from './station-database.js';

/** The audit log's one insert: a request's entry, or an operator's on the station's machine (backup.ts). */
export const INSERT_AUDIT =
  'INSERT INTO audit_log (at, tx_id, operation, token_name, id_persona, outcome, http_status, audit_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/** The values of INSERT_AUDIT for an entry, in its order. */
export const auditValues = (e: Omit<AuditEntry, 'seq'>) =>
  [e.at, e.txId, e.operation, e.tokenName, e.idPersona, e.outcome, e.httpStatus, e.auditToken] as const;

interface TokenRow {
  id: string;
  name: string;
  secret_hash: Buffer;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface AuditRow {
  seq: number;
  at: string;
  tx_id: string;
  operation: string;
  token_name: string | null;
  id_persona: string | null;
  outcome: string;
  http_status: number;
  audit_token: string | null;
}

/** API tokens and the audit log in the station's SQLite file. */
export function sqliteRecords(db: Database.Database): StationRecords {
  const q = {
    insertToken: db.prepare(
      'INSERT INTO api_tokens (id, name, secret_hash, scopes, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    tokenById: db.prepare<[string], TokenRow>('SELECT * FROM api_tokens WHERE id = ?'),
    listTokens: db.prepare<[], TokenRow>('SELECT * FROM api_tokens ORDER BY created_at, id'),
    revokeToken: db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    touchToken: db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?'),
    insertAudit: db.prepare(INSERT_AUDIT),
    listAudit: db.prepare<[number], AuditRow>('SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?'),
    listAuditBefore: db.prepare<[number, number], AuditRow>('SELECT * FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT ?'),
  };
  return {
    insertToken: (t: TokenRecord) =>
      void sqliteFaults(() =>
        q.insertToken.run(t.id, t.name, t.secretHash, t.scopes.join(','), t.createdAt, t.lastUsedAt, t.revokedAt),
      ),
    findToken: (id) => {
      const row = q.tokenById.get(id);
      return row ? tokenOf(row) : null;
    },
    listTokens: () => q.listTokens.all().map(tokenOf),
    revokeToken: (id, at) => sqliteFaults(() => q.revokeToken.run(at, id).changes > 0),
    touchToken: (id, at) => void sqliteFaults(() => q.touchToken.run(at, id)),
    appendAudit: (e) => void sqliteFaults(() => q.insertAudit.run(...auditValues(e))),
    listAudit: (query) => {
      const rows = query.beforeSeq ? q.listAuditBefore.all(query.beforeSeq, query.limit) : q.listAudit.all(query.limit);
      return rows.map((r) => ({
        seq: r.seq,
        at: r.at,
        txId: r.tx_id,
        operation: r.operation,
        tokenName: r.token_name,
        idPersona: r.id_persona,
        outcome: r.outcome,
        httpStatus: r.http_status,
        auditToken: r.audit_token,
      }));
    },
  };
}

function tokenOf(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secret_hash,
    scopes: row.scopes.split(',').filter(Boolean) as Scope[],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
