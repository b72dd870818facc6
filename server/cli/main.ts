import { Command, InvalidArgumentError, Option } from 'commander';
import { SCOPES, isScope, type Scope } from '../../common/scopes.js';
import { STATION_VERSION } from '../version.js';
import { runBackup, runRestore } from './backup-command.js';
import { runOpenApi } from './openapi-command.js';
import { runKeyRotate } from './key-command.js';
import { runServe } from './serve-command.js';
import { runTemplate } from './template-command.js';
import { runTokenCreate, runTokenList, runTokenRevoke } from './token-command.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('debe ser un entero entre 0 y 65535');
  return n;
}

function scopes(value: string): Scope[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !isScope(s));
  if (bad.length || list.length === 0) throw new InvalidArgumentError(`alcances válidos: ${SCOPES.join(', ')}`);
  return list as Scope[];
}

const dataDirOption = () => new Option('--data-dir <dir>', 'directorio de datos de la estación (env ENROLLA_DATA_DIR)');

export function buildCli(): Command {
  const program = new Command('enrolla')
    .description('Enrolla: estación biométrica de enrolamiento (rostro y DNI), sin conexión.')
    .version(STATION_VERSION)
    .showHelpAfterError();

  program
    .command('serve')
    .description('Inicia la estación sin interfaz gráfica: API REST por HTTPS y consola del operador en /.')
    .addOption(dataDirOption())
    .addOption(new Option('--port <n>', 'puerto (env ENROLLA_PORT; por defecto 8443)').argParser(port))
    .addOption(
      new Option('--host <addr>', 'dirección de escucha (env ENROLLA_HOST; por defecto 127.0.0.1; 0.0.0.0 para la red local)'),
    )
    .addOption(new Option('--http', 'HTTP plano en lugar de HTTPS (solo para pruebas o detrás de un proxy TLS)'))
    .addOption(new Option('--config <file>', 'archivo de configuración JSON (por defecto <data-dir>/config.json)'))
    .addOption(new Option('--log-level <level>', 'nivel de log (env ENROLLA_LOG_LEVEL)'))
    .addOption(
      new Option(
        '--database-url <url>',
        'galería compartida en PostgreSQL, postgres://usuario:clave@host:5432/base (env ENROLLA_DATABASE_URL; por defecto, SQLite local)',
      ),
    )
    .action(runServe);

  const token = program.command('token').description('Tokens de API: crear, listar, revocar.');
  token
    .command('create')
    .description('Crea un token; lo imprime solo en la última línea y no se puede volver a ver.')
    .addOption(dataDirOption())
    .requiredOption('--name <name>', 'nombre del token (quién o qué lo usa)')
    .requiredOption('--scopes <list>', `alcances separados por comas: ${SCOPES.join(', ')}`, scopes)
    .action(runTokenCreate);
  token.command('list').description('Lista los tokens (nunca su valor).').addOption(dataDirOption()).action(runTokenList);
  token
    .command('revoke')
    .description('Revoca un token por su id (ver token list).')
    .argument('<id>', 'id del token')
    .addOption(dataDirOption())
    .action(runTokenRevoke);

  program
    .command('key')
    .description('Clave de datos de la estación (cifrado en reposo de plantillas e imágenes).')
    .command('rotate')
    .description(
      'Genera una clave nueva y vuelve a cifrar todos los datos biométricos con ella (detenga la estación antes). ' +
        'Con una galería compartida cambia en línea la clave de la flota: la nueva en ENROLLA_DATA_KEY, la actual en ENROLLA_DATA_KEY_PREVIOUS (docs/fleet-gallery.md).',
    )
    .addOption(dataDirOption())
    .action(runKeyRotate);

  program
    .command('backup')
    .description(
      'Copia la base de datos de la estación (personas, muestras cifradas, tokens, auditoría) a un archivo; la estación puede seguir en marcha.',
    )
    .addOption(dataDirOption())
    .option('--out <file>', 'archivo del respaldo (por defecto <data-dir>/backups/enrolla-<fecha>.db; nunca se sobrescribe)')
    .action(runBackup);
  program
    .command('restore')
    .description(
      'Pone un respaldo en lugar de la base de datos de la estación (deténgala antes); la base reemplazada queda en <data-dir>/replaced/.',
    )
    .argument('<file>', 'archivo de respaldo hecho con enrolla backup')
    .addOption(dataDirOption())
    .option(
      '--key <file>',
      'archivo de la clave de datos con la que se hizo el respaldo (la exportada por el escritorio, o keys/data.key de la estación que lo hizo); pasa a ser la clave de la estación',
    )
    .action(runRestore);

  const template = program
    .command('template')
    .description('Construye un UITemplate a partir de archivos de imagen y lo escribe en la salida estándar.');
  template
    .command('face')
    .description('UITemplate de rostro: de 1 a 5 imágenes JPEG o PNG de una secuencia de captura.')
    .argument('<images...>', 'archivos de imagen')
    .addOption(dataDirOption().hideHelp())
    .action((images: string[]) => runTemplate('face', images));
  template
    .command('document')
    .description('UITemplate de documento: frente y, opcionalmente, dorso (JPEG o PNG).')
    .argument('<front>', 'imagen del frente')
    .argument('[back]', 'imagen del dorso')
    .addOption(dataDirOption().hideHelp())
    .action((front: string, back: string | undefined) => runTemplate('document', back ? [front, back] : [front]));

  program
    .command('openapi')
    .description('Escribe el documento OpenAPI 3.1 de la API.')
    .option('--out <file>', 'archivo de salida (por defecto, salida estándar)')
    .action(runOpenApi);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `enrolla template ... | head` closes the pipe early; that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    process.stderr.write(`enrolla: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
