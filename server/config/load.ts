import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { formatIssues } from '../domain/index.js';
import { configSchema, type StationConfig } from './schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ConfigSources {
  /** From the command line; wins over everything. */
  overrides?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Explicit config file; otherwise `<dataDir>/config.json` when present. */
  configFile?: string;
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share');
  return path.join(base, 'enrolla');
}

/** Precedence: command line > environment > config file > defaults. */
export function loadConfig(sources: ConfigSources = {}): StationConfig {
  const env = sources.env ?? process.env;
  const fromEnv = envSettings(env);
  const overrides = stripUndefined(sources.overrides ?? {});
  const dataDir = path.resolve(String(overrides.dataDir ?? fromEnv.dataDir ?? defaultDataDir(env)));
  const file = sources.configFile ?? path.join(dataDir, 'config.json');
  let fromFile: Record<string, unknown> = {};
  if (sources.configFile !== undefined || existsSync(file)) {
    try {
      fromFile = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`No se pudo leer el archivo de configuración ${file}: ${(error as Error).message}`);
    }
  }
  const merged = deepMerge(deepMerge(fromFile, fromEnv), { ...overrides, dataDir });
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(`Configuración inválida: ${formatIssues(parsed.error.issues, merged)}`);
  return parsed.data;
}

function envSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (env.ENROLLA_DATA_DIR) out.dataDir = env.ENROLLA_DATA_DIR;
  if (env.ENROLLA_HOST) out.host = env.ENROLLA_HOST;
  if (env.ENROLLA_PORT) out.port = numberOrText(env.ENROLLA_PORT);
  if (env.ENROLLA_LOG_LEVEL) out.logLevel = env.ENROLLA_LOG_LEVEL;
  if (env.ENROLLA_DATABASE_URL) out.databaseUrl = env.ENROLLA_DATABASE_URL;
  const tls: Record<string, unknown> = {};
  if (env.ENROLLA_TLS) tls.enabled = !['0', 'false', 'off', 'no'].includes(env.ENROLLA_TLS.toLowerCase());
  if (env.ENROLLA_TLS_CERT) tls.certFile = env.ENROLLA_TLS_CERT;
  if (env.ENROLLA_TLS_KEY) tls.keyFile = env.ENROLLA_TLS_KEY;
  if (Object.keys(tls).length > 0) out.tls = tls;
  return out;
}

function numberOrText(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}

function stripUndefined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}
