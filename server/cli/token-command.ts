import type { Scope } from '../../common/scopes.js';
import { TokenService } from '../auth/index.js';
import { loadConfig } from '../config/index.js';
import { loadOrCreateDataKey, openSqliteStation } from '../storage/index.js';

function withTokens<T>(dataDir: string | undefined, fn: (tokens: TokenService) => T): T {
  const config = loadConfig({ overrides: { dataDir } });
  const store = openSqliteStation(config.dataDir, loadOrCreateDataKey(config.dataDir));
  try {
    return fn(new TokenService(store.records));
  } finally {
    store.close();
  }
}

export function runTokenCreate(options: { dataDir?: string; name: string; scopes: Scope[] }): void {
  const { token, info } = withTokens(options.dataDir, (t) => t.create(options.name, options.scopes));
  process.stdout.write(
    `Token '${info.name}' (id ${info.id}) con alcances ${info.scopes.join(', ')}. Guárdelo: no se vuelve a mostrar.\n${token}\n`,
  );
}

export function runTokenList(options: { dataDir?: string }): void {
  const list = withTokens(options.dataDir, (t) => t.list());
  const rows = list.map((t) =>
    [t.id, t.name, t.scopes.join(','), t.createdAt, t.lastUsedAt ?? '-', t.revokedAt ? `revocado ${t.revokedAt}` : 'activo'].join(
      '\t',
    ),
  );
  process.stdout.write(`${['id\tnombre\talcances\tcreado\túltimo uso\testado', ...rows].join('\n')}\n`);
}

export function runTokenRevoke(id: string, options: { dataDir?: string }): void {
  const revoked = withTokens(options.dataDir, (t) => t.revoke(id));
  if (!revoked) throw new Error(`no hay un token activo con id ${id}`);
  process.stdout.write(`Token ${id} revocado.\n`);
}
