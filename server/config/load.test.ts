import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';

const dir = () => mkdtempSync(path.join(tmpdir(), 'enrolla-config-'));

describe('configuration', () => {
  it('has safe defaults: HTTPS on loopback', () => {
    const config = loadConfig({ env: {}, overrides: { dataDir: dir() } });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8443, tls: { enabled: true } });
  });

  it('takes command line over environment over file', () => {
    const dataDir = dir();
    writeFileSync(path.join(dataDir, 'config.json'), JSON.stringify({ port: 9000, host: '0.0.0.0', logLevel: 'warn' }));
    const env = { ENROLLA_DATA_DIR: dataDir, ENROLLA_PORT: '9100', ENROLLA_TLS: 'off' };
    const config = loadConfig({ env, overrides: { port: 9200 } });
    expect(config).toMatchObject({ dataDir, port: 9200, host: '0.0.0.0', logLevel: 'warn', tls: { enabled: false } });
    expect(loadConfig({ env }).port).toBe(9100);
  });

  it('explains what is wrong, naming the setting', () => {
    expect(() => loadConfig({ env: { ENROLLA_PORT: '99999' }, overrides: { dataDir: dir() } })).toThrow(
      /campo 'port': debe ser <= 65535/,
    );
    expect(() => loadConfig({ env: { ENROLLA_PORT: 'abc' }, overrides: { dataDir: dir() } })).toThrow(
      /campo 'port': debe ser un número/,
    );
    const dataDir = dir();
    writeFileSync(path.join(dataDir, 'config.json'), '{ nope');
    expect(() => loadConfig({ env: {}, overrides: { dataDir } })).toThrow(ConfigError);
    writeFileSync(path.join(dataDir, 'config.json'), JSON.stringify({ tls: { certFile: '/x.pem' } }));
    expect(() => loadConfig({ env: {}, overrides: { dataDir } })).toThrow(/certFile y keyFile van juntos/);
    writeFileSync(path.join(dataDir, 'config.json'), JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ env: {}, overrides: { dataDir } })).toThrow(/no reconocido: 'prot'/);
  });
});
