import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** Debian's PostgreSQL binaries (`apt-get install postgresql`); the newest installed major wins. */
export function postgresBinDir(): string | null {
  for (const major of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${major}/bin`;
    if (existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

export const POSTGRES_MISSING =
  'PostgreSQL no está instalado (/usr/lib/postgresql/*/bin/initdb): `apt-get install postgresql` o `.ci/run` lo instala';
if (!postgresBinDir()) console.warn(`Se omiten las pruebas sobre PostgreSQL: ${POSTGRES_MISSING}`);

/**
 * One throwaway cluster for the tests of a file (started before them; skipped with a warning where
 * PostgreSQL is not installed), and what they open, closed after them, last first.
 */
export function postgresForFile(): { readonly cluster: TestPostgres; defer(...close: (() => Promise<unknown>)[]): void } {
  let cluster: TestPostgres | null = null;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    if (postgresBinDir()) cluster = await startTestPostgres();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await cluster?.stop();
  });
  return {
    get cluster() {
      if (!cluster) throw new Error(POSTGRES_MISSING);
      return cluster;
    },
    defer: (...close) => void closers.push(...close),
  };
}

export interface TestPostgres {
  /** A fresh, empty database on the throwaway cluster; its connection URL. */
  createDatabase(): Promise<string>;
  /** Stops the server, keeping its data (to see what stations do without it). */
  pause(): Promise<void>;
  /** Starts it again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A throwaway cluster in a temp dir on a free loopback port, trust auth, no fsync unless `durable`.
 * initdb refuses root, so as root the cluster runs as the `postgres` system user (the package creates it).
 */
export async function startTestPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const root = mkdtempSync(path.join(tmpdir(), 'enrolla-pg-'));
  const dataDir = path.join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? { uid: idOf('-u'), gid: idOf('-g') } : {};
  if (asRoot) chownSync(root, owner.uid!, owner.gid!);
  const init = spawnSync(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], {
    encoding: 'utf8',
    ...owner,
  });
  if (init.status !== 0) throw new Error(`initdb falló: ${init.stderr}`);
  const port = await freePort();
  writeFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${root}'`,
      // Tests need no durability; benchmarks ask for it (`durable`), as production has it.
      ...(options.durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
      'max_connections = 200',
      'shared_buffers = 64MB',
    ].join('\n'),
  );
  if (asRoot) chownSync(path.join(dataDir, 'postgresql.auto.conf'), owner.uid!, owner.gid!);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server = await launch(path.join(bin, 'postgres'), dataDir, owner, adminUrl);
  const down = async () => {
    // SIGINT: "fast" shutdown, open sessions are closed.
    if (server.child.exitCode === null) {
      server.child.kill('SIGINT');
      await server.exited;
    }
  };
  process.once('exit', () => server.child.kill('SIGQUIT'));
  let counter = 0;
  return {
    async createDatabase() {
      const name = `enrolla_test_${process.pid}_${++counter}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    pause: down,
    async resume() {
      server = await launch(path.join(bin, 'postgres'), dataDir, owner, adminUrl);
    },
    async stop() {
      await down();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function launch(
  postgres: string,
  dataDir: string,
  owner: { uid?: number; gid?: number },
  adminUrl: string,
): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(postgres, ['-D', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], ...owner });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitUntilAccepting(adminUrl, () => (child.exitCode !== null ? stderr : null));
  return { child, exited };
}

function idOf(flag: '-u' | '-g'): number {
  return Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitUntilAccepting(url: string, failed: () => string | null): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      const why = failed();
      if (why !== null) throw new Error(`PostgreSQL no arrancó: ${why}`);
      if (Date.now() > deadline) throw new Error(`PostgreSQL no acepta conexiones: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
