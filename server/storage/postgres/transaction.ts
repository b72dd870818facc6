import type pg from 'pg';

/** Runs `body` in one transaction on `client` (`begin` sets its mode); rolled back if it throws. */
export async function inTransaction<T>(client: pg.ClientBase, body: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await client.query(begin);
  try {
    const result = await body();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
