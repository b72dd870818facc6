import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresBinDir, postgresForFile } from '../../../e2e/helpers/postgres.js';
import { inTransaction } from './transaction.js';

const postgres = postgresForFile();

describe.skipIf(!postgresBinDir())('inTransaction (postgres)', () => {
  it('commits what the body wrote, rolls it back when the body throws, and opens the mode asked for', async () => {
    const client = new pg.Client({ connectionString: await postgres.cluster.createDatabase() });
    await client.connect();
    postgres.defer(() => client.end());
    await client.query('CREATE TABLE t (v int)');
    const values = async () => (await client.query<{ v: number }>('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v);

    expect(await inTransaction(client, async () => (await client.query('INSERT INTO t VALUES (1) RETURNING v')).rowCount)).toBe(
      1,
    );
    // A failure in the body's own code (not a failed statement, which PostgreSQL would abort anyway).
    await expect(
      inTransaction(client, async () => {
        await client.query('INSERT INTO t VALUES (2)');
        throw new Error('body failed');
      }),
    ).rejects.toThrow('body failed');
    expect(await values()).toEqual([1]);

    const mode = await inTransaction(
      client,
      async () =>
        (await client.query<{ transaction_isolation: string }>('SHOW transaction_isolation')).rows[0]!.transaction_isolation,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
    expect(mode).toBe('repeatable read');
    // The client is usable afterwards, outside any transaction.
    await client.query('INSERT INTO t VALUES (3)');
    expect(await values()).toEqual([1, 3]);
  });
});
