import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkPackaging, standInElectron } from '../scripts/packaging/check.js';
import { ENROLLA_FUSES, flipFuses, readFuses, SENTINEL } from '../scripts/packaging/fuses.js';

const work = mkdtempSync(path.join(tmpdir(), 'enrolla-packaging-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('Electron fuses (afterPack hook)', () => {
  it('flips the wire of a stand-in binary to Enrolla’s settings and reads it back', async () => {
    const dir = path.join(work, 'fuses');
    standInElectron(dir, '38.8.6');
    const binary = path.join(dir, 'electron');
    expect((await readFuses(binary)).runAsNode).toBe('enabled'); // Electron's default
    const before = readFileSync(binary);
    expect(await flipFuses(binary, ENROLLA_FUSES)).toBe(1);
    expect(await readFuses(binary)).toEqual({
      runAsNode: 'disabled',
      enableCookieEncryption: 'enabled',
      enableNodeOptionsEnvironmentVariable: 'disabled',
      enableNodeCliInspectArguments: 'disabled',
      enableEmbeddedAsarIntegrityValidation: 'enabled',
      onlyLoadAppFromAsar: 'enabled',
      loadBrowserProcessSpecificV8Snapshot: 'disabled',
      grantFileProtocolExtraPrivileges: 'disabled',
    });
    const after = readFileSync(binary);
    expect(after.length).toBe(before.length); // in place: only wire bytes change
    expect([...after].filter((b, i) => b !== before[i]).length).toBeLessThanOrEqual(8);
  });

  it('refuses a binary without fuses, or a fuse this Electron does not have; skips removed fuses', async () => {
    const plain = path.join(work, 'plain');
    writeFileSync(plain, '#!/bin/sh\n');
    chmodSync(plain, 0o755);
    await expect(flipFuses(plain, ENROLLA_FUSES)).rejects.toThrow(/1 o 2 marcas/);
    const short = path.join(work, 'short');
    writeFileSync(short, Buffer.concat([Buffer.from('x'), SENTINEL, Buffer.from([1, 3]), Buffer.from('1r1'), Buffer.from('y')]));
    await expect(flipFuses(short, { onlyLoadAppFromAsar: true })).rejects.toThrow(/no tiene el fusible onlyLoadAppFromAsar/);
    await expect(flipFuses(short, { noSuchFuse: true })).rejects.toThrow(/desconocido/);
    await flipFuses(short, { runAsNode: false, enableCookieEncryption: true });
    expect(await readFuses(short)).toEqual({
      runAsNode: 'disabled',
      enableCookieEncryption: 'removed',
      enableNodeOptionsEnvironmentVariable: 'enabled',
    });
  });
});

// electron-builder itself, offline, with a stand-in Electron (about 10 s here): needs `npm run build` first.
describe('packaging with electron-builder --dir --linux', () => {
  it('packs the built app into app.asar, unpacks native modules, ships the models and sets the fuses', async () => {
    const { problems, facts } = await checkPackaging({ work: path.join(work, 'package') });
    expect(problems).toEqual([]);
    expect(facts.nativeModules).toEqual(
      expect.arrayContaining(['node_modules/better-sqlite3/build/Release/better_sqlite3.node']),
    );
    expect(facts.modelFiles).toBeGreaterThan(0);
    console.log(`empaquetado en ${facts.seconds} s: ${facts.asarEntries} entradas en app.asar, ${facts.modelFiles} modelos`);
  }, 240_000);
});
