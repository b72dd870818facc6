import Database from 'better-sqlite3';
import { KEY_CHECK, sampleAad } from '../../crypto/sample-sealing.js';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AuditEntry, PersonSummary } from '../../../common/api/admin-schemas.js';
import type { Scope } from '../../../common/scopes.js';
import { openAll } from '../../crypto/open-all.js';
import { open, seal, SealError } from '../../crypto/sealed.js';
import {
  type BatchSink,
  StoreError,
  type EnrollResult,
  type NewSample,
  type SampleRecord,
  type StationStore,
  type StreamVisitor,
  type TokenRecord,
  type UnreadableSample,
  unreadableSampleMessage,
} from '../store.js';
import { BLOCK_IDS, sealBlock } from './embedding-blocks.js';
import { MIGRATIONS } from './migrations.js';
import { BATCH, streamPersonsUnsealed, streamUnsealed } from './stream-embeddings.js';

export const DATABASE_FILE = 'enrolla.db';

/**
 * Opens (creating and migrating as needed) the station database in `dataDir`. Embeddings and
 * face images are sealed with `dataKey` (AES-256-GCM): a copy of the file alone reveals neither.
 */
export interface SqliteStoreOptions {
  /**
   * Where the bulk reads of the search index (a rebuild, a crash's catch-up) report a sample that
   * does not open, which they then leave out. Without it they fail on it, as every other read does.
   */
  onUnreadableSample?: (sample: UnreadableSample) => void;
}

export function openSqliteStore(dataDir: string, dataKey: Buffer, options: SqliteStoreOptions = {}): StationStore {
  const readOnly = isReadOnlyDir(dataDir);
  if (!readOnly) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DATABASE_FILE);
  if (readOnly && !existsSync(file)) {
    throw new StoreError(`El directorio de datos ${dataDir} es de solo lectura y no contiene una base de datos.`, 'read_only');
  }
  return wrap(() => {
    try {
      return openDatabase(file, dataKey, readOnly, options);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      // A database SQLite cannot read is said as such, with what mends it, and not as SQLite's code.
      if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
        throw new StoreError(
          `La base de datos ${file} está dañada (${(error as Error).message}): restaure un respaldo (enrolla restore, o el menú Respaldo del escritorio; docs/security.md).`,
          'unavailable',
        );
      throw error;
    }
  });
}

function openDatabase(file: string, dataKey: Buffer, readOnly: boolean, options: SqliteStoreOptions): StationStore {
  // Read-only directory: serve reads, refuse writes with a clear envelope (docs/errors.md).
  const db = new Database(file, readOnly ? { readonly: true, fileMustExist: true } : {});
  try {
    if (!readOnly) {
      // FULL: in WAL mode NORMAL may lose the last commits on power loss; an acknowledged enrollment must survive.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    // Deleted rows and freed pages are overwritten with zeros: a deleted person leaves no trace in the file.
    db.pragma('secure_delete = ON');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    checkKey(db, dataKey);
    sealPlaintextSamples(db, dataKey);
    return new SqliteStore(db, dataKey, readOnly, options.onUnreadableSample ?? null);
  } catch (error) {
    // Closed now, not when the collector finds it: the desktop restores over this file in the same process.
    db.close();
    throw error;
  }
}

/** An existing directory the process may not write (read-only mount, or permissions for a non-root user). */
function isReadOnlyDir(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  try {
    accessSync(dataDir, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** A value sealed at creation tells, at every start, whether this is the key that sealed the data. */
function checkKey(db: Database.Database, key: Buffer): void {
  const opens = keyOpens(db, key);
  if (opens === null) {
    db.prepare('INSERT INTO station_meta (name, value) VALUES (?, ?)').run(
      KEY_CHECK,
      seal(key, Buffer.from('enrolla'), KEY_CHECK),
    );
    return;
  }
  if (!opens)
    throw new StoreError(
      'La clave de datos no es la que cifró esta base: sin la clave original las muestras biométricas no se pueden leer (docs/security.md).',
      'unavailable',
    );
}

/** Whether `key` opens the value sealed at the database's creation; null while it has none (or, before schema 2, no table for it). */
export function keyOpens(db: Database.Database, key: Buffer): boolean | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'station_meta'").get();
  const row = table
    ? db.prepare<[string], { value: Buffer }>('SELECT value FROM station_meta WHERE name = ?').get(KEY_CHECK)
    : undefined;
  if (!row) return null;
  try {
    open(key, row.value, KEY_CHECK);
    return true;
  } catch {
    return false;
  }
}

/** The audit log's one insert: a request's entry, or an operator's on the station's machine (backup.ts). */
export const INSERT_AUDIT =
  'INSERT INTO audit_log (at, tx_id, operation, token_name, id_persona, outcome, http_status, audit_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/** The values of INSERT_AUDIT for an entry, in its order. */
export const auditValues = (e: Omit<AuditEntry, 'seq'>) =>
  [e.at, e.txId, e.operation, e.tokenName, e.idPersona, e.outcome, e.httpStatus, e.auditToken] as const;

/** Samples written in clear (before sealing): read through the partial index face_samples_unsealed. */
export const UNSEALED_SAMPLES = 'SELECT id, id_persona, embedding, thumbnail FROM face_samples WHERE sealed = 0';

function sealPlaintextSamples(db: Database.Database, key: Buffer): void {
  const rows = db.prepare<[], { id: number; id_persona: string; embedding: Buffer; thumbnail: Buffer | null }>(UNSEALED_SAMPLES);
  const update = db.prepare('UPDATE face_samples SET embedding = ?, thumbnail = ?, sealed = 1 WHERE id = ?');
  db.transaction(() => {
    for (const r of rows.all()) {
      update.run(
        seal(key, r.embedding, sampleAad(r.id_persona, 'embedding')),
        r.thumbnail ? seal(key, r.thumbnail, sampleAad(r.id_persona, 'thumbnail')) : null,
        r.id,
      );
    }
  })();
}

function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new StoreError(
      `La base de datos es de una versión más nueva (esquema ${current}; esta versión conoce hasta ${latest}).`,
      'unavailable',
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

interface PersonRow {
  id_persona: string;
  created_at: string;
  updated_at: string;
  samples: number;
}

interface SampleRow {
  id: number;
  id_persona: string;
  model_id: string;
  embedding: Buffer;
  quality: number;
  thumbnail: Buffer | null;
  created_at: string;
}

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

const PERSON_COLUMNS = `p.id_persona, p.created_at, p.updated_at,
  (SELECT count(*) FROM face_samples s WHERE s.id_persona = p.id_persona) AS samples`;

class SqliteStore implements StationStore {
  private readonly q;

  constructor(
    private readonly db: Database.Database,
    private key: Buffer,
    private readonly readOnly: boolean,
    private readonly onUnreadable: ((sample: UnreadableSample) => void) | null,
  ) {
    this.q = {
      personById: db.prepare<[string], PersonRow>(`SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.id_persona = ?`),
      insertPerson: db.prepare('INSERT INTO persons (id_persona, created_at, updated_at) VALUES (?, ?, ?)'),
      touchPerson: db.prepare('UPDATE persons SET updated_at = ? WHERE id_persona = ?'),
      deleteSamples: db.prepare('DELETE FROM face_samples WHERE id_persona = ?'),
      insertSample: db.prepare(
        'INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at, sealed) VALUES (?, ?, ?, ?, ?, ?, 1)',
      ),
      countSamples: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM face_samples WHERE id_persona = ?'),
      samplesOf: db.prepare<[string], SampleRow>('SELECT * FROM face_samples WHERE id_persona = ? ORDER BY id'),
      deletePerson: db.prepare('DELETE FROM persons WHERE id_persona = ?'),
      embeddingsOfPersons: db.prepare<[string, string], EmbeddingRow>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id_persona IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      embeddingsOf: db.prepare<[string], EmbeddingRow>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? ORDER BY id',
      ),
      embeddingPage: db.prepare<[string, number, number], { id: number; id_persona: string; embedding: Buffer }>(
        'SELECT id, id_persona, embedding FROM face_samples WHERE model_id = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      countPersons: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM persons'),
      maxSampleId: db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM face_samples'),
      embeddingRange: db.prepare<[string, number, number], EmbeddingRow>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id > ? AND id <= ? ORDER BY id',
      ),
      sealedBlocks: db
        .prepare<[string, number | null], number>('SELECT block FROM embedding_blocks WHERE model_id = ? AND leading IS ?')
        .pluck(),
      insertBlock: db.prepare('INSERT OR REPLACE INTO embedding_blocks (block, model_id, leading, sealed) VALUES (?, ?, ?, ?)'),
      galleryVersion: db.prepare<[], { gallery_id: string; version: number }>(
        'SELECT gallery_id, version FROM gallery_version WHERE id = 1',
      ),
      changesAfter: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM gallery_changes WHERE version > ?'),
      personsChangedAfter: db
        .prepare<[number], string>('SELECT DISTINCT id_persona FROM gallery_changes WHERE version > ?')
        .pluck(),
      forgetChanges: db.prepare('DELETE FROM gallery_changes WHERE version <= ?'),
      countPersonsPrefix: db.prepare<[{ prefix: string }], { n: number }>(
        'SELECT count(*) AS n FROM persons WHERE id_persona >= @prefix AND id_persona < @prefix || char(1114111)',
      ),
      listPersons: db.prepare<[number, number], PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM persons p ORDER BY p.id_persona LIMIT ? OFFSET ?`,
      ),
      listPersonsPrefix: db.prepare<[{ prefix: string; limit: number; offset: number }], PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.id_persona >= @prefix AND p.id_persona < @prefix || char(1114111)
         ORDER BY p.id_persona LIMIT @limit OFFSET @offset`,
      ),
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
  }

  enrollPerson(idPersona: string, samples: NewSample[], options: { replace: boolean }): EnrollResult {
    return wrap(() =>
      this.db.transaction((): EnrollResult => {
        const now = new Date().toISOString();
        const existing = this.q.personById.get(idPersona);
        if (existing) this.q.touchPerson.run(now, idPersona);
        else this.q.insertPerson.run(idPersona, now, now);
        if (options.replace) this.q.deleteSamples.run(idPersona);
        for (const s of samples) {
          this.q.insertSample.run(
            idPersona,
            s.modelId,
            seal(this.key, floatsToBlob(s.embedding), sampleAad(idPersona, 'embedding')),
            s.quality,
            s.thumbnail ? seal(this.key, s.thumbnail, sampleAad(idPersona, 'thumbnail')) : null,
            now,
          );
        }
        return { created: !existing, samples: this.q.countSamples.get(idPersona)!.n };
      })(),
    );
  }

  getPerson(idPersona: string): PersonSummary | null {
    const row = this.q.personById.get(idPersona);
    return row ? personOf(row) : null;
  }

  listPersons(query: { prefix?: string | undefined; limit: number; offset: number }) {
    if (query.prefix) {
      const total = this.q.countPersonsPrefix.get({ prefix: query.prefix })!.n;
      const rows = this.q.listPersonsPrefix.all({ prefix: query.prefix, limit: query.limit, offset: query.offset });
      return { total, persons: rows.map(personOf) };
    }
    return { total: this.countPersons(), persons: this.q.listPersons.all(query.limit, query.offset).map(personOf) };
  }

  listSamples(idPersona: string): SampleRecord[] {
    return this.q.samplesOf.all(idPersona).map((row) => ({
      id: row.id,
      idPersona: row.id_persona,
      modelId: row.model_id,
      embedding: blobToFloats(this.unseal(row.embedding, row.id_persona, 'embedding')),
      quality: row.quality,
      thumbnail: row.thumbnail ? new Uint8Array(this.unseal(row.thumbnail, row.id_persona, 'thumbnail')) : null,
      createdAt: row.created_at,
    }));
  }

  deletePerson(idPersona: string): number | null {
    const removed = wrap(() =>
      this.db.transaction((): number | null => {
        if (!this.q.personById.get(idPersona)) return null;
        const removed = this.q.deleteSamples.run(idPersona).changes;
        this.q.deletePerson.run(idPersona);
        return removed;
      })(),
    );
    // The WAL still holds earlier copies of the deleted pages: fold it into the (zeroed) file and empty it.
    if (removed !== null) this.checkpoint();
    return removed;
  }

  private checkpoint(): void {
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Best effort (a full disk, a reader mid-scan): the next checkpoint folds and overwrites these frames.
    }
  }

  galleryStamp(): string {
    const row = this.q.galleryVersion.get()!;
    return `${row.gallery_id}:${row.version}`;
  }

  changedSince(stamp: string): string[] | null {
    const since = this.versionOf(stamp);
    const now = this.q.galleryVersion.get()!.version;
    if (since === null || since > now) return null;
    // Every version in (since, now] has its entry, unless some were forgotten or never written.
    if (this.q.changesAfter.get(since)!.n !== now - since) return null;
    return this.q.personsChangedAfter.all(since);
  }

  forgetChangesThrough(stamp: string): void {
    const through = this.versionOf(stamp);
    if (through === null || this.readOnly) return;
    wrap(() => this.q.forgetChanges.run(through));
  }

  /** The version of a stamp of this gallery, or null for another gallery's. */
  private versionOf(stamp: string): number | null {
    const [galleryId, version] = stamp.split(':');
    if (galleryId !== this.q.galleryVersion.get()!.gallery_id || !/^\d+$/.test(version ?? '')) return null;
    return Number(version);
  }

  forEachEmbedding(modelId: string, visit: (idPersona: string, embedding: Float32Array) => void): void {
    const batch: EmbeddingRow[] = [];
    const visitBatch = () => {
      this.openRows(batch, this.onUnreadable).forEach((e, i) => e && visit(batch[i]!.id_persona, e));
      batch.length = 0;
    };
    for (const row of this.q.embeddingsOf.iterate(modelId)) {
      batch.push(row);
      if (batch.length === BATCH) visitBatch();
    }
    visitBatch();
  }

  embeddingsOfPersons(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): void {
    for (let at = 0; at < ids.length; at += BATCH) {
      const chunk = ids.slice(at, at + BATCH);
      const rows = this.q.embeddingsOfPersons.all(modelId, JSON.stringify(chunk));
      const byPerson = new Map<string, Float32Array[]>();
      this.openRows(rows, this.onUnreadable).forEach((e, i) => {
        if (!e) return;
        const id = rows[i]!.id_persona;
        const list = byPerson.get(id);
        if (list) list.push(e);
        else byPerson.set(id, [e]);
      });
      for (const id of chunk) visit(id, byPerson.get(id) ?? []);
    }
  }

  /** Opened a batch at a time (open-all.ts); one by one when it does not hold, to name the bad sample. */
  private openEmbeddings(rows: readonly EmbeddingRow[]): Float32Array[] {
    return this.openRows(rows, null) as Float32Array[];
  }

  /**
   * openEmbeddings, where `unreadable` (the search index's bulk reads, with a reporter: see
   * SqliteStoreOptions) takes a sample that does not open instead of failing the batch: null
   * comes back in its place.
   */
  private openRows(
    rows: readonly EmbeddingRow[],
    unreadable: ((sample: UnreadableSample) => void) | null,
  ): (Float32Array | null)[] {
    const plain = openAll(
      this.key,
      rows.map((r) => r.embedding),
      rows.map((r) => sampleAad(r.id_persona, 'embedding')),
    );
    if (plain) return plain.map(blobToFloats);
    return rows.map((r) => {
      try {
        return blobToFloats(this.unseal(r.embedding, r.id_persona, 'embedding'));
      } catch (error) {
        if (!unreadable || !(error instanceof StoreError)) throw error;
        unreadable({ idPersona: r.id_persona, reason: error.message });
        return null;
      }
    });
  }

  streamEmbeddings(
    modelId: string,
    visit: StreamVisitor,
    sink?: (atMost: number) => BatchSink | null,
    leading?: number,
  ): Promise<void> {
    const maxId = this.q.maxSampleId.get()!.id ?? 0;
    // The workers read the file themselves unless it is in memory (only this connection sees it).
    const ranges = this.db.memory ? undefined : { file: this.db.name, modelId, maxId, ...(leading ? { leading } : {}) };
    // Ids only grow: the last one bounds the samples without counting them.
    const page = (after: number, limit: number) => this.q.embeddingPage.all(modelId, after, limit);
    return streamUnsealed(this.key, page, visit, {
      ranges,
      sink: sink?.(maxId) ?? null,
      ...(this.onUnreadable ? { onUnreadable: this.onUnreadable } : {}),
    });
  }

  sealEmbeddingBlocks(modelId: string, atMost: number, leading?: number): { sealed: number; missing: number } {
    if (this.readOnly) return { sealed: 0, missing: 0 };
    return wrap(() => {
      // Ids only grow: a range below the one holding the last id gets no more samples.
      const maxId = this.q.maxSampleId.get()!.id ?? 0;
      const complete = Math.floor(Math.max(0, maxId - 1) / BLOCK_IDS);
      // A block of another length (an earlier setting) is sealed again, and replaced.
      const sealed = new Set(this.q.sealedBlocks.all(modelId, leading ?? null));
      let missing = 0;
      let done = 0;
      for (let block = 0; block < complete; block++) {
        if (sealed.has(block)) continue;
        if (done >= atMost) {
          missing++;
          continue;
        }
        done++;
        // Read and written in one transaction: the block is the rows as committed.
        this.db.transaction(() => {
          const rows = this.q.embeddingRange.all(modelId, block * BLOCK_IDS, (block + 1) * BLOCK_IDS);
          const embeddings = this.openEmbeddings(rows);
          const persons = rows.map((r) => r.id_persona);
          const bytes = sealBlock(this.key, modelId, block, leading ?? null, persons, embeddings);
          this.q.insertBlock.run(block, modelId, leading ?? null, bytes);
        })();
      }
      return { sealed: done, missing };
    });
  }

  streamPersonsEmbeddings(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<boolean> {
    if (this.db.memory) return Promise.resolve(false);
    return streamPersonsUnsealed(this.key, { file: this.db.name, modelId }, ids, visit, this.onUnreadable);
  }

  countPersons(): number {
    return this.q.countPersons.get()!.n;
  }

  insertToken(t: TokenRecord): void {
    wrap(() => this.q.insertToken.run(t.id, t.name, t.secretHash, t.scopes.join(','), t.createdAt, t.lastUsedAt, t.revokedAt));
  }

  findToken(id: string): TokenRecord | null {
    const row = this.q.tokenById.get(id);
    return row ? tokenOf(row) : null;
  }

  listTokens(): TokenRecord[] {
    return this.q.listTokens.all().map(tokenOf);
  }

  revokeToken(id: string, at: string): boolean {
    return wrap(() => this.q.revokeToken.run(at, id).changes > 0);
  }

  touchToken(id: string, at: string): void {
    wrap(() => this.q.touchToken.run(at, id));
  }

  appendAudit(e: Omit<AuditEntry, 'seq'>): void {
    wrap(() => this.q.insertAudit.run(...auditValues(e)));
  }

  listAudit(query: { limit: number; beforeSeq?: number | undefined }): AuditEntry[] {
    const rows = query.beforeSeq ? this.q.listAuditBefore.all(query.beforeSeq, query.limit) : this.q.listAudit.all(query.limit);
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
  }

  rotateDataKey(newKey: Buffer): number {
    const rows = this.db.prepare<[], { id: number; id_persona: string; embedding: Buffer; thumbnail: Buffer | null }>(
      'SELECT id, id_persona, embedding, thumbnail FROM face_samples',
    );
    const update = this.db.prepare('UPDATE face_samples SET embedding = ?, thumbnail = ? WHERE id = ?');
    const count = wrap(() =>
      this.db.transaction(() => {
        let n = 0;
        for (const r of rows.all()) {
          const embedding = this.unseal(r.embedding, r.id_persona, 'embedding');
          const thumbnail = r.thumbnail ? this.unseal(r.thumbnail, r.id_persona, 'thumbnail') : null;
          update.run(
            seal(newKey, embedding, sampleAad(r.id_persona, 'embedding')),
            thumbnail ? seal(newKey, thumbnail, sampleAad(r.id_persona, 'thumbnail')) : null,
            r.id,
          );
          n++;
        }
        this.db
          .prepare('UPDATE station_meta SET value = ? WHERE name = ?')
          .run(seal(newKey, Buffer.from('enrolla'), KEY_CHECK), KEY_CHECK);
        return n;
      })(),
    );
    this.key = newKey;
    return count;
  }

  close(): void {
    if (!this.db.open) return;
    if (!this.readOnly) {
      try {
        // Leave a rollback-journal file behind: unlike a WAL database, it can be opened from a read-only directory.
        this.db.pragma('journal_mode = DELETE');
      } catch {
        // Another connection holds it, or the disk is full: it stays in WAL mode, which is just as safe.
      }
    }
    this.db.close();
  }

  private unseal(blob: Buffer, idPersona: string, field: 'embedding' | 'thumbnail'): Buffer {
    try {
      return open(this.key, blob, sampleAad(idPersona, field));
    } catch (error) {
      if (error instanceof SealError) throw new StoreError(unreadableSampleMessage(idPersona, error.message), 'unavailable');
      throw error;
    }
  }
}

function personOf(row: PersonRow): PersonSummary {
  return { idPersona: row.id_persona, samples: row.samples, createdAt: row.created_at, updatedAt: row.updated_at };
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

function floatsToBlob(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

interface EmbeddingRow {
  id_persona: string;
  embedding: Buffer;
}

function blobToFloats(blob: Buffer): Float32Array {
  // Copy: the Buffer's offset in its pool need not be 4-byte aligned.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** Storage faults become StoreErrors that the HTTP layer maps to a clear envelope. */
function wrap<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_FULL') throw new StoreError('No queda espacio en disco para guardar los datos.', 'storage_full');
    if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN') {
      throw new StoreError('El directorio de datos es de solo lectura o no se puede abrir.', 'read_only');
    }
    if (code === 'SQLITE_BUSY') throw new StoreError('La base de datos está ocupada; reintente.', 'unavailable');
    throw error;
  }
}
