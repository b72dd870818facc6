import type pg from 'pg';
import { inTransaction } from './transaction.js';

/**
 * Numbered, append-only schema migrations of the shared gallery; `gallery_migrations` records
 * what ran. Never edit a released entry: add the next number. Stations of different versions may
 * share a database only while the older one knows every applied number (it refuses otherwise).
 */
export const PG_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'persons, sealed samples, change feed',
    sql: `
      CREATE TABLE persons (
        id_persona text COLLATE "C" PRIMARY KEY,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE face_samples (
        id bigserial PRIMARY KEY,
        id_persona text COLLATE "C" NOT NULL REFERENCES persons(id_persona) ON DELETE CASCADE,
        model_id text NOT NULL,
        embedding bytea NOT NULL,
        quality real NOT NULL,
        thumbnail bytea,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX face_samples_by_person ON face_samples(id_persona);
      -- One row per committed write, in commit order (writers hold one advisory lock): stations
      -- follow it to keep their search index in step.
      CREATE TABLE gallery_changes (
        seq bigserial PRIMARY KEY,
        id_persona text COLLATE "C" NOT NULL,
        kind text NOT NULL CHECK (kind IN ('enroll', 'delete')),
        at timestamptz NOT NULL DEFAULT now(),
        station text
      );
      CREATE TABLE gallery_meta (
        name text PRIMARY KEY,
        value bytea NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'change feed pruning mark',
    sql: `
      -- Changes older than the retention are deleted (change-feed.ts, pruneChanges); a station
      -- that had not applied them yet finds its position at or under this mark and reloads.
      CREATE TABLE gallery_changes_pruned (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        through bigint NOT NULL
      );
      INSERT INTO gallery_changes_pruned (through) VALUES (0);
    `,
  },
];

/** Lock ids (pg_advisory_xact_lock) of this schema; arbitrary but fixed. */
export const MIGRATION_LOCK = 0x656e_0001;
export const WRITE_LOCK = 0x656e_0002;
export const PRUNE_LOCK = 0x656e_0003;

export function migrate(client: pg.ClientBase): Promise<void> {
  return inTransaction(client, async () => {
    // Two stations starting together: one migrates, the other waits and then finds nothing to do.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS gallery_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM gallery_migrations');
    const current = rows[0]?.v ?? 0;
    const latest = PG_MIGRATIONS.at(-1)?.version ?? 0;
    if (current > latest) {
      throw new SchemaTooNew(
        `La galería compartida es de una versión más nueva (esquema ${current}; esta versión conoce hasta ${latest}).`,
      );
    }
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO gallery_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
  });
}

export class SchemaTooNew extends Error {
  override name = 'SchemaTooNew';
}
