import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTemplate } from '../../common/uitemplate/index.js';
import { makeClient } from '../helpers/https-client.js';

// The installed command, as a user runs it (the test command builds dist/ first).
const BIN = new URL('../../bin/enrolla.js', import.meta.url).pathname;
const FACE = new URL('../../test/fixtures/face-a.jpg', import.meta.url).pathname;
const run = promisify(execFile);
const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'enrolla-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('enrolla command', () => {
  it('explains each subcommand with --help', async () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['token', 'create', '--help'],
      ['template', 'face', '--help'],
      ['backup', '--help'],
      ['restore', '--help'],
    ]) {
      const { stdout } = await run('node', [BIN, ...args]);
      expect(stdout).toMatch(/Usage: enrolla/);
    }
    const { stdout } = await run('node', [BIN, 'serve', '--help']);
    expect(stdout).toMatch(/--data-dir/);
    expect(stdout).toMatch(/--port/);
    expect(stdout).toMatch(/--host/);
  });

  it('runs as a program through its first line, which starts Node with the station’s V8 flag', async () => {
    // npx and an installed package run the file itself: its first line is Node's command line.
    const { stdout } = await run(BIN, ['serve', '--help']);
    expect(stdout).toMatch(/--data-dir/);
    expect(readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env -S node --single-threaded-gc');
  });

  it('creates a token printed alone on the last line, lists and revokes it', async () => {
    const dir = dataDir();
    const created = await run('node', [
      BIN,
      'token',
      'create',
      '--data-dir',
      dir,
      '--name',
      'kiosco',
      '--scopes',
      'verify,identify',
    ]);
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^enr_[A-Za-z0-9_-]{12}_[A-Za-z0-9_-]{43}$/);
    const listed = await run('node', [BIN, 'token', 'list'], { env: { ...process.env, ENROLLA_DATA_DIR: dir } });
    expect(listed.stdout).toMatch(/kiosco\tverify,identify/);
    expect(listed.stdout).not.toContain(token);
    const id = token.slice(4, 16);
    await run('node', [BIN, 'token', 'revoke', id, '--data-dir', dir]);
    expect((await run('node', [BIN, 'token', 'list', '--data-dir', dir])).stdout).toMatch(/revocado/);
  });

  it('refuses unknown scopes with a clear message', async () => {
    await expect(
      run('node', [BIN, 'token', 'create', '--data-dir', dataDir(), '--name', 'x', '--scopes', 'todo']),
    ).rejects.toMatchObject({
      stderr: expect.stringMatching(/alcances válidos: enroll, verify/),
    });
  });

  it('builds face and document templates from image files', async () => {
    const face = (await run('node', [BIN, 'template', 'face', FACE, FACE])).stdout.trim();
    const decoded = await decodeTemplate(face, 'face');
    expect(decoded.frames).toHaveLength(2);
    const doc = (await run('node', [BIN, 'template', 'document', FACE, FACE])).stdout.trim();
    expect((await decodeTemplate(doc, 'document')).frames.map((f) => f.side)).toEqual(['front', 'back']);
    await expect(run('node', [BIN, 'template', 'face', BIN])).rejects.toMatchObject({
      stderr: expect.stringMatching(/JPEG ni PNG/),
    });
  });

  it('serves HTTPS on the configured port, printing the fingerprint and a first admin token', async () => {
    const dir = dataDir();
    const child = spawn('node', [BIN, 'serve', '--port', '0', '--log-level', 'warn'], {
      env: { ...process.env, ENROLLA_DATA_DIR: dir, ENROLLA_HOST: '127.0.0.1' },
    });
    try {
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => /enr_\S+/.test(stderr) && (clearInterval(timer), resolve()), 50);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      expect(stderr).toMatch(/huella SHA-256 del certificado .*: ([0-9A-F]{2}:){31}[0-9A-F]{2}/);
      const url = /escuchando en (https:\/\/\S+)/.exec(stderr)![1]!;
      const token = /(enr_\S+)/.exec(stderr)![1]!;
      const { readFileSync } = await import('node:fs');
      const send = makeClient(url, readFileSync(path.join(dir, 'tls', 'station-cert.pem'), 'utf8'));
      const res = await send('/biometria/admin/estado-estacion', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ success: true, data: { status: 'SUCCESS' } });
    } finally {
      // Wait for the station to stop: it writes its index snapshot on the way out, and the data
      // directory is removed after this test.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
