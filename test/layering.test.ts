import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

async function violations(filePath: string, code: string, rule = 'no-restricted-imports'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

/** What one rule says of each import of `source` from `file`: its number of messages per case. */
async function importsJudged(cases: readonly [string, string][], rule = 'no-restricted-imports'): Promise<string[]> {
  const out: string[] = [];
  for (const [file, source] of cases) {
    const messages = await violations(file, `import * as m from '${source}';\nexport const a = m;\n`, rule);
    out.push(`${file} <- ${source}: ${messages.length}`);
  }
  return out;
}
const each = (cases: readonly [string, string][], n: number) => cases.map(([file, source]) => `${file} <- ${source}: ${n}`);

describe('layering rules (enforced by lint)', () => {
  it('common/ imports neither the layers above nor Node', async () => {
    expect(
      await violations(
        'common/x.ts',
        "import { startStation } from '../server/station/index.js';\nexport const a = startStation;\n",
      ),
    ).toHaveLength(1);
    expect(
      await violations('common/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"),
    ).toHaveLength(1);
  });

  it('the renderer reaches neither the server, Electron nor Node', async () => {
    for (const source of ["'../../server/station.js'", "'electron'", "'node:path'", "'better-sqlite3'"]) {
      expect(await violations('renderer/src/x.ts', `import * as m from ${source};\nexport const a = m;\n`)).toHaveLength(1);
    }
    expect(
      await violations(
        'renderer/src/x.ts',
        "import { OPERATIONS } from '../../common/api/operations.js';\nexport const a = OPERATIONS;\n",
      ),
    ).toEqual([]);
  });

  it('storage and sealing import neither the search index nor the engines; sealing no storage', async () => {
    for (const source of ["'../search/index.js'", "'../engines/worker-pool.js'", "'../gallery-index/index-sync.js'"]) {
      expect(await violations('server/storage/x.ts', `import * as m from ${source};\nexport const a = m;\n`)).toHaveLength(1);
    }
    expect(
      await violations('server/crypto/x.ts', "import { StoreError } from '../storage/index.js';\nexport const a = StoreError;\n"),
    ).toHaveLength(1);
    expect(
      await violations('server/storage/x.ts', "import { seal } from '../crypto/sealed.js';\nexport const a = seal;\n"),
    ).toEqual([]);
  });

  it('the server does not import the Electron shell or the renderer', async () => {
    expect(
      await violations(
        'server/x.ts',
        "import { consoleTokenFor } from '../main/console-token.js';\nexport const a = consoleTokenFor;\n",
      ),
    ).toHaveLength(1);
    expect(
      await violations('server/x.ts', "import { App } from '../renderer/src/App.js';\nexport const a = App;\n"),
    ).toHaveLength(1);
  });
  it('inside server/, a folder imports only the layers below it, and not a folder beside it', async () => {
    const refused: [string, string][] = [
      ['server/operations/x.ts', '../http/index.js'],
      ['server/engines/x.ts', '../storage/index.js'],
      ['server/search/x.ts', '../storage/index.js'],
      ['server/storage/x.ts', '../engines/index.js'],
      ['server/domain/x.ts', '../engines/index.js'],
      ['server/matching/x.ts', '../domain/index.js'],
      ['server/crypto/x.ts', '../matching/index.js'],
      ['server/config/x.ts', '../auth/index.js'],
      ['server/http/x.ts', '../station/index.js'],
      ['server/station/x.ts', '../cli/main.js'],
      ['server/operations/x.ts', 'better-sqlite3'],
      ['server/cli/x.ts', 'pg'],
      ['server/station/x.ts', 'express'],
    ];
    expect(await importsJudged(refused)).toEqual(each(refused, 1));
    const allowed: [string, string][] = [
      ['server/http/x.ts', '../operations/index.js'],
      ['server/operations/x.ts', '../engines/index.js'],
      ['server/gallery-index/x.ts', '../search/index.js'],
      ['server/engines/x.ts', '../matching/index.js'],
      ['server/storage/x.ts', '../crypto/index.js'],
      ['server/threads/x.ts', '../version.js'],
      ['server/cli/x.ts', '../station/index.js'],
      ['server/storage/x.ts', 'pg'],
    ];
    expect(await importsJudged(allowed)).toEqual(each(allowed, 0));
  });

  it("inside server/, another folder is reached through its entry point, its own folder's modules directly", async () => {
    const refused: [string, string][] = [
      ['server/storage/x.ts', '../crypto/sealed.js'],
      ['server/operations/face/x.ts', '../../engines/face/types.js'],
      ['server/engines/face/analysis/x.ts', '../../../imaging/pixels.js'],
      ['server/http/x.ts', '../auth/tokens.js'],
    ];
    expect(await importsJudged(refused, 'server/entry-points')).toEqual(each(refused, 1));
    const allowed: [string, string][] = [
      ['server/operations/face/x.ts', '../../engines/index.js'],
      ['server/engines/face/analysis/x.ts', '../../../imaging/index.js'],
      ['server/engines/face/analysis/x.ts', '../worker/face-runtime.js'],
      ['server/operations/x.ts', '../engines/document/index.js'],
      ['server/search/x.ts', '../version.js'],
    ];
    expect(await importsJudged(allowed, 'server/entry-points')).toEqual(each(allowed, 0));
  });

  it('the desktop shell and the benchmarks import the server through its entry points only', async () => {
    for (const source of [
      '../server/storage/sqlite/backup.js',
      '../server/engines/face/face-engine.js',
      '../server/station/start-station.js',
    ]) {
      expect(await violations('main/x.ts', `import * as m from '${source}';\nexport const a = m;\n`), source).toHaveLength(1);
    }
    for (const source of ['../server/storage/index.js', '../server/engines/document/index.js', '../server/version.js']) {
      expect(await violations('bench/x.ts', `import * as m from '${source}';\nexport const a = m;\n`), source).toEqual([]);
    }
  });
});
