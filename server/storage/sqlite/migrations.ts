/**
 * Numbered, append-only schema migrations; `PRAGMA user_version` records the last applied.
 * Never edit a released entry: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE persons (
        id_persona TEXT PRIMARY KEY NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE face_samples (
        id INTEGER PRIMARY KEY,
        id_persona TEXT NOT NULL REFERENCES persons(id_persona) ON DELETE CASCADE,
        model_id TEXT NOT NULL,
        embedding BLOB NOT NULL,
        quality REAL NOT NULL,
        thumbnail BLOB,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX face_samples_by_person ON face_samples(id_persona);

      CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY NOT NULL,
        name TEXT NOT NULL,
        secret_hash BLOB NOT NULL,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      ) STRICT;

      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        operation TEXT NOT NULL,
        token_name TEXT,
        id_persona TEXT,
        outcome TEXT NOT NULL,
        http_status INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'biometric data sealed at rest',
    // Rows written before this version are sealed by the store right after migrating (it holds the key).
    sql: `
      ALTER TABLE face_samples ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE station_meta (
        name TEXT PRIMARY KEY NOT NULL,
        value BLOB NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: 'gallery version for the search index snapshot',
    // Bumped by triggers in the same transaction as every change to the samples, so a snapshot of
    // the search index saved at version V matches the gallery exactly while the version is still V.
    // The random id tells one database from another (a restored copy) at the same version.
    sql: `
      CREATE TABLE gallery_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        gallery_id TEXT NOT NULL,
        version INTEGER NOT NULL
      ) STRICT;
      INSERT INTO gallery_version (id, gallery_id, version) VALUES (1, lower(hex(randomblob(16))), 0);
      CREATE TRIGGER face_samples_inserted AFTER INSERT ON face_samples
        BEGIN UPDATE gallery_version SET version = version + 1 WHERE id = 1; END;
      CREATE TRIGGER face_samples_deleted AFTER DELETE ON face_samples
        BEGIN UPDATE gallery_version SET version = version + 1 WHERE id = 1; END;
      CREATE TRIGGER face_samples_updated AFTER UPDATE ON face_samples
        BEGIN UPDATE gallery_version SET version = version + 1 WHERE id = 1; END;
    `,
  },
  {
    version: 4,
    name: 'journal of gallery changes for the search index',
    // Which person each gallery version changed, written by the triggers that bump the version, in
    // the same transaction: after a crash the index loads its last snapshot and re-reads only the
    // persons changed since, instead of every sample. Entries up to the latest saved snapshot are
    // deleted by the station. A changed id_persona (never done by the station) logs both persons.
    sql: `
      CREATE TABLE gallery_changes (
        version INTEGER PRIMARY KEY,
        id_persona TEXT NOT NULL
      ) STRICT;
      DROP TRIGGER face_samples_inserted;
      DROP TRIGGER face_samples_deleted;
      DROP TRIGGER face_samples_updated;
      CREATE TRIGGER face_samples_inserted AFTER INSERT ON face_samples BEGIN
        UPDATE gallery_version SET version = version + 1 WHERE id = 1;
        INSERT INTO gallery_changes (version, id_persona) SELECT version, NEW.id_persona FROM gallery_version WHERE id = 1;
      END;
      CREATE TRIGGER face_samples_deleted AFTER DELETE ON face_samples BEGIN
        UPDATE gallery_version SET version = version + 1 WHERE id = 1;
        INSERT INTO gallery_changes (version, id_persona) SELECT version, OLD.id_persona FROM gallery_version WHERE id = 1;
      END;
      CREATE TRIGGER face_samples_updated AFTER UPDATE ON face_samples BEGIN
        UPDATE gallery_version SET version = version + 1 WHERE id = 1;
        INSERT INTO gallery_changes (version, id_persona) SELECT version, OLD.id_persona FROM gallery_version WHERE id = 1;
      END;
      CREATE TRIGGER face_samples_moved AFTER UPDATE OF id_persona ON face_samples
        WHEN NEW.id_persona IS NOT OLD.id_persona BEGIN
        UPDATE gallery_version SET version = version + 1 WHERE id = 1;
        INSERT INTO gallery_changes (version, id_persona) SELECT version, NEW.id_persona FROM gallery_version WHERE id = 1;
      END;
    `,
  },
  {
    version: 5,
    name: 'index of the samples still in clear',
    // Opening the store seals any sample written in clear (by a version before sealing): without
    // this index that check read the whole table at each start. Samples are written sealed, so the
    // index stays empty and costs nothing to keep.
    sql: `
      CREATE INDEX face_samples_unsealed ON face_samples(id) WHERE sealed = 0;
    `,
  },
  {
    version: 6,
    name: 'sealed blocks of embeddings for the search index rebuild',
    // One sealed value per model and range of 2,048 sample ids (embedding-blocks.ts, BLOCK_IDS),
    // holding each embedding's first \`leading\` values (NULL: all): a rebuild opens it instead of
    // reading the range row by row. A copy, never the truth: any
    // change to a sample deletes its range's block in the same transaction, and a range without
    // its block is read from the rows. The station writes blocks in the background.
    sql: `
      CREATE TABLE embedding_blocks (
        block INTEGER NOT NULL,
        model_id TEXT NOT NULL,
        leading INTEGER,
        sealed BLOB NOT NULL,
        PRIMARY KEY (block, model_id)
      ) STRICT;
      CREATE TRIGGER embedding_blocks_inserted AFTER INSERT ON face_samples BEGIN
        DELETE FROM embedding_blocks WHERE block = (NEW.id - 1) / 2048;
      END;
      CREATE TRIGGER embedding_blocks_deleted AFTER DELETE ON face_samples BEGIN
        DELETE FROM embedding_blocks WHERE block = (OLD.id - 1) / 2048;
      END;
      CREATE TRIGGER embedding_blocks_updated AFTER UPDATE ON face_samples BEGIN
        DELETE FROM embedding_blocks WHERE block IN ((OLD.id - 1) / 2048, (NEW.id - 1) / 2048);
      END;
    `,
  },
  {
    version: 7,
    name: "the caller's audit token beside each audit entry",
    // The vendor's requests carry an `auditToken` of the integrator's own (a case or desk number):
    // kept beside the token name so the two logs can be joined.
    sql: `
      ALTER TABLE audit_log ADD COLUMN audit_token TEXT;
    `,
  },
];
