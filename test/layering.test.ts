import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering rules (enforced by lint)', () => {
  it('common/ imports neither the layers above nor Node', async () => {
    expect(
      await violations('common/x.ts', "import { startStation } from '../server/station.js';\nexport const a = startStation;\n"),
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
});
