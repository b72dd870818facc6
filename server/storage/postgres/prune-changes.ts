import type pg from 'pg';
import { PRUNE_LOCK } from './migrations.js';
import { inTransaction } from './transaction.js';

/** How long `gallery_changes` keeps a change by default: longer than a station is expected to be away. */
export const CHANGE_RETENTION_DAYS = 7;

/**
 * Deletes the changes older than `retentionMs`, except the newest (a station starting reads its
 * position from it), and raises the pruning mark to the last one deleted; a station that had not
 * applied them reloads its index (change-feed.ts). One station at a time: the others skip.
 * Returns the new mark, or null when nothing was deleted.
 */
export function pruneChanges(client: pg.ClientBase, retentionMs: number): Promise<number | null> {
  return inTransaction(client, async () => {
    const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [PRUNE_LOCK]);
    if (!locked.rows[0]!.ok) return null;
    const { rows } = await client.query<{ through: string | null }>(
      `SELECT max(seq) AS through FROM gallery_changes
        WHERE at < now() - make_interval(secs => $1) AND seq < (SELECT max(seq) FROM gallery_changes)`,
      [retentionMs / 1000],
    );
    const through = rows[0]?.through == null ? null : Number(rows[0].through);
    if (through !== null) {
      await client.query('DELETE FROM gallery_changes WHERE seq <= $1', [through]);
      await client.query('UPDATE gallery_changes_pruned SET through = GREATEST(through, $1)', [through]);
    }
    return through;
  });
}
