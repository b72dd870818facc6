import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { BRIDGE_CHANNEL } from './bridge.js';

/**
 * Runs the preload as Electron's sandbox would: compiled to CommonJS, in its own context, with
 * `require` limited to 'electron' (faked here). What it exposes and what it asks are recorded.
 */
function runPreload(answer: unknown): { exposed: Map<string, unknown>; asked: string[]; required: string[] } {
  const source = readFileSync(new URL('./preload.cts', import.meta.url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const exposed = new Map<string, unknown>();
  const asked: string[] = [];
  const required: string[] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      sendSync: (channel: string) => {
        asked.push(channel);
        return answer;
      },
    },
  };
  const require = (id: string): unknown => {
    required.push(id);
    if (id !== 'electron') throw new Error(`un preload aislado no puede cargar ${id}`);
    return electron;
  };
  const module = { exports: {} };
  vm.runInNewContext(outputText, { require, module, exports: module.exports, process: { argv: [] } });
  return { exposed, asked, required };
}

describe('preload bridge', () => {
  it('exposes the base URL and token, frozen, and no IPC handle', () => {
    const { exposed, asked, required } = runPreload({ baseUrl: 'https://127.0.0.1:8443', token: 'enr_abc_def', extra: 1 });
    expect(required).toEqual(['electron']);
    expect(asked).toEqual([BRIDGE_CHANNEL]);
    expect([...exposed.keys()]).toEqual(['enrolla']);
    const api = exposed.get('enrolla') as Record<string, unknown>;
    expect(api).toEqual({ baseUrl: 'https://127.0.0.1:8443', token: 'enr_abc_def' });
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.values(api).every((v) => typeof v === 'string')).toBe(true);
  });

  it('exposes empty values when the main process refuses (not the console window)', () => {
    for (const refusal of [null, undefined, 'x', { baseUrl: 3, token: {} }]) {
      expect(runPreload(refusal).exposed.get('enrolla')).toEqual({ baseUrl: '', token: '' });
    }
  });
});
