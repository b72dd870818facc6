import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openSqliteStation } from '../../server/storage/index.js';
import { seededRandom } from '../../test/random.js';

const CHILD = new URL('./enroll-child.js', import.meta.url).pathname;
const CYCLES = 12;
const embeddingOf = (i: number) => Float32Array.from({ length: 128 }, (_, k) => Math.sin(i * 131 + k));

/** Runs the enrolling child until a random moment, kills it with SIGKILL, returns the ids it acknowledged. */
function enrollUntilKilled(dataDir: string, key: Buffer, start: number, afterMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir, key.toString('base64'), String(start)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: number[] = [];
    let buffer = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('ACK p')) acked.push(Number(line.slice(5)));
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let started = false;
    child.stdout.once('data', () => {
      started = true;
      setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.on('exit', (_code, signal) => {
      if (!started || signal !== 'SIGKILL') reject(new Error(`the child ended on its own: ${stderr}`));
      else resolve(acked);
    });
  });
}

describe('an enrollment acknowledged is never lost', () => {
  it(`survives ${CYCLES} SIGKILLs at random moments: every acknowledged enrollment present and intact, database sound`, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-kill-'));
    const key = randomBytes(32);
    openSqliteStation(dataDir, key).close();
    const random = seededRandom(7);
    const acknowledged: number[] = [];
    let next = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const acked = await enrollUntilKilled(dataDir, key, next, 30 + Math.floor(random() * 250));
      acknowledged.push(...acked);
      next = (acked.at(-1) ?? next) + 1000; // leave room: the killed enrollment may or may not have committed
      const store = openSqliteStation(dataDir, key);
      for (const i of acked) {
        const samples = await store.gallery.embeddingsOf(`p${i}`);
        expect(samples, `p${i} acknowledged but missing after SIGKILL ${cycle + 1}`).toHaveLength(1);
        expect(Array.from(samples[0]!.embedding)).toEqual(Array.from(embeddingOf(i)));
      }
      store.close();
      const db = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    }
    expect(acknowledged.length).toBeGreaterThan(CYCLES * 5);
    console.info(`SIGKILL test: ${CYCLES} kills, ${acknowledged.length} acknowledged enrollments, all present and intact`);
  }, 120_000);
});
