import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenInfo } from '../../common/api/admin-schemas.js';
import type { Scope } from '../../common/scopes.js';
import { StoreError, type TokenRecord, type TokenStore } from '../storage/index.js';

/**
 * API tokens look like `enr_<id:12>_<secret:43>`: the id finds the row, the secret is only
 * ever kept as its SHA-256 and compared in constant time. The prefix lets secret scanners
 * recognise a leaked token.
 */
const TOKEN_PATTERN = /^enr_([A-Za-z0-9_-]{12})_([A-Za-z0-9_-]{43})$/;
const TOUCH_INTERVAL_MS = 60_000;

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked';

export type AuthResult = { ok: true; token: TokenRecord } | { ok: false; failure: AuthFailure };

export class TokenService {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly store: TokenStore) {}

  create(name: string, scopes: readonly Scope[]): { token: string; info: TokenInfo } {
    const id = alphanumericId(12);
    const secret = randomBytes(32).toString('base64url');
    const record: TokenRecord = {
      id,
      name,
      secretHash: hashSecret(secret),
      scopes: [...new Set(scopes)],
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    this.store.insertToken(record);
    return { token: `enr_${id}_${secret}`, info: toInfo(record) };
  }

  list(): TokenInfo[] {
    return this.store.listTokens().map(toInfo);
  }

  revoke(id: string): boolean {
    this.lastTouched.delete(id);
    return this.store.revokeToken(id, new Date().toISOString());
  }

  hasActiveAdmin(): boolean {
    return this.store.listTokens().some((t) => t.revokedAt === null && t.scopes.includes('admin'));
  }

  /** Checks an `Authorization` header value. */
  authenticate(header: string | undefined): AuthResult {
    if (!header) return { ok: false, failure: 'missing' };
    const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
    const parts = match ? TOKEN_PATTERN.exec(match[1]!) : null;
    if (!parts) return { ok: false, failure: 'malformed' };
    const record = this.store.findToken(parts[1]!);
    const presented = hashSecret(parts[2]!);
    // Compare even for an unknown id, so the answer takes the same time either way.
    const expected = record?.secretHash ?? presented.map((b) => b ^ 0xff);
    const equal = expected.length === presented.length && timingSafeEqual(expected, presented);
    if (!record || !equal) return { ok: false, failure: 'unknown' };
    if (record.revokedAt !== null) return { ok: false, failure: 'revoked' };
    this.touch(record.id);
    return { ok: true, token: record };
  }

  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.lastTouched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(id, now);
    try {
      this.store.touchToken(id, new Date(now).toISOString());
    } catch (error) {
      // last_used_at is advisory: a full disk or a read-only data directory must not refuse reads.
      if (!(error instanceof StoreError)) throw error;
    }
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Ids are letters and digits only: one starting with '-' would read as an option on the command line. */
function alphanumericId(length: number): string {
  let id = '';
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && id.length < length) id += ALPHANUMERIC[byte % 62]; // 248 = 4 x 62: no modulo bias
    }
  }
  return id;
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function toInfo(record: TokenRecord): TokenInfo {
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt,
    revokedAt: record.revokedAt,
  };
}
