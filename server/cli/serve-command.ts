import { loadConfig } from '../config/index.js';
import { startStation } from '../station/index.js';

interface ServeOptions {
  dataDir?: string;
  port?: number;
  host?: string;
  http?: boolean;
  config?: string;
  logLevel?: string;
  databaseUrl?: string;
}

export async function runServe(options: ServeOptions): Promise<void> {
  const config = loadConfig({
    configFile: options.config,
    overrides: {
      dataDir: options.dataDir,
      port: options.port,
      host: options.host,
      logLevel: options.logLevel,
      databaseUrl: options.databaseUrl,
      ...(options.http ? { tls: { enabled: false } } : {}),
    },
  });
  const station = await startStation(config);
  const lines = [
    `Enrolla escuchando en ${station.url}`,
    `  consola del operador: ${station.url}/`,
    `  documentación de la API: ${station.url}/docs`,
    `  datos: ${config.dataDir}`,
    `  galería: ${station.gallery.location}`,
  ];
  if (station.fingerprint256)
    lines.push(`  huella SHA-256 del certificado (para fijarlo en los clientes): ${station.fingerprint256}`);
  if (config.host !== '127.0.0.1' && config.host !== 'localhost' && config.host !== '::1') {
    lines.push(`  ATENCIÓN: expuesta en la red (${config.host}).`);
  }
  if (station.bootstrapToken) {
    lines.push(
      '',
      'No había ningún token de administración: se creó uno (se muestra solo esta vez):',
      `  ${station.bootstrapToken}`,
    );
  }
  process.stderr.write(`${lines.join('\n')}\n`);
  const stop = (): void => {
    void station.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
