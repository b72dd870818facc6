// Lint, including the layering rules: common <- server, renderer <- main, and the layers inside server/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'child_process',
  'http',
  'https',
  'net',
  'worker_threads',
  'url',
  'stream',
  'zlib',
];

/** Forbid imports that climb to a layer above, or reach Node from browser code. */
function layer(files, { forbidLayers = [], forbidNode = false, forbidPackages = [] }) {
  const patterns = [
    ...forbidLayers.map((l) => ({
      group: [`**/${l}/*`, `**/${l}`],
      message: `Las capas no importan hacia arriba: no se importa ${l}/ desde aquí.`,
    })),
    ...(forbidNode
      ? [{ group: NODE_BUILTINS, message: 'Este código corre también en el navegador: nada de módulos de Node.' }]
      : []),
    ...forbidPackages.map((p) => ({ group: [p, `${p}/*`], message: `${p} no pertenece a esta capa.` })),
  ];
  // Tests and build configs run in Node whatever the layer they sit in.
  return {
    files,
    ignores: ['**/*.test.ts', 'renderer/vite.config.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

const SERVER_FORBIDDEN_PACKAGES = ['electron', 'react', 'react-dom'];

/**
 * The layers inside server/, lowest first (README, Layout): a folder imports the layers below it,
 * never one above, nor (in the layers of several folders) a folder beside it. `base` knows nothing
 * of biometrics; `domain` nothing of storage, engines or transports.
 */
const SERVER_LAYERS = [
  ['base', ['log', 'threads', 'crypto', 'imaging', 'tls']],
  ['domain', ['domain', 'matching']],
  ['engines, storage, search', ['engines', 'storage', 'search']],
  ['services', ['gallery-index', 'auth', 'config']],
  ['use cases', ['operations']],
  ['transport', ['http']],
  ['composition', ['station']],
  ['command line', ['cli']],
];

/** Packages only one folder of server/ uses: the databases' drivers are storage's, Express is http's. */
const FOLDER_PACKAGES = { storage: ['better-sqlite3', 'pg'], http: ['express'] };

/** What main/ and bench/ may import from server/: each folder's entry point (the document readers have their own). */
const SERVER_ENTRY_POINTS = [
  ...SERVER_LAYERS.flatMap(([, folders]) => folders.filter((f) => f !== 'cli').map((f) => `${f}/index.js`)),
  'engines/document/index.js',
  'version.js',
];

// Beside this file, wherever ESLint is run from.
const SERVER_DIR = fileURLToPath(new URL('./server', import.meta.url));

/**
 * Folders of server/ reach one another only through their entry points (index.ts), so a folder's
 * inside can change without touching its callers. Paths are resolved, which no-restricted-imports
 * cannot do for relative specifiers.
 */
const entryPointsRule = {
  meta: {
    type: 'problem',
    messages: { deep: 'Otra carpeta del servidor se importa por su punto de entrada: {{entry}}, no {{target}}.' },
  },
  create(context) {
    const from = path.relative(SERVER_DIR, context.filename).split(path.sep);
    function check(node) {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(SERVER_DIR, path.resolve(path.dirname(context.filename), spec)).split(path.sep);
      if (target[0] === '..' || target.length < 2 || target[0] === from[0]) return;
      const inside = target.slice(1).join('/');
      if (SERVER_ENTRY_POINTS.includes(`${target[0]}/${inside}`)) return;
      context.report({
        node: node.source,
        messageId: 'deep',
        data: { entry: `${target[0]}/index.js`, target: target.join('/') },
      });
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** One layer() per folder of server/: no import of a folder above it or beside it in its layer. */
function serverLayers() {
  return SERVER_LAYERS.flatMap(([, folders], i) => {
    const above = SERVER_LAYERS.slice(i + 1).flatMap(([, f]) => f);
    return folders.map((folder) =>
      layer([`server/${folder}/**/*.ts`], {
        forbidLayers: ['renderer', 'main', ...above, ...(i === 0 ? [] : folders.filter((f) => f !== folder))],
        forbidPackages: [
          ...SERVER_FORBIDDEN_PACKAGES,
          ...Object.entries(FOLDER_PACKAGES).flatMap(([owner, packages]) => (owner === folder ? [] : packages)),
        ],
      }),
    );
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'renderer/dist/**', 'bench/results/**', 'test-results/**', 'models/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  layer(['common/**/*.ts'], {
    forbidLayers: ['server', 'renderer', 'main'],
    forbidNode: true,
    forbidPackages: ['express', 'better-sqlite3', 'pino', 'electron', 'react'],
  }),
  layer(['server/**/*.ts'], { forbidLayers: ['renderer', 'main'], forbidPackages: SERVER_FORBIDDEN_PACKAGES }),
  ...serverLayers(),
  {
    files: ['server/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { server: { rules: { 'entry-points': entryPointsRule } } },
    rules: { 'server/entry-points': 'error' },
  },
  // The desktop shell and the benchmarks reach the server through each folder's entry point only.
  ...['main', 'bench'].map((dir) => ({
    files: [`${dir}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `/server/(?!(${SERVER_ENTRY_POINTS.map((e) => e.replace(/[./]/g, '\\$&')).join('|')})$)`,
              message:
                'Desde fuera del servidor se importa solo el punto de entrada de cada carpeta (server/<carpeta>/index.js).',
            },
          ],
        },
      ],
    },
  })),
  layer(['renderer/**/*.ts', 'renderer/**/*.tsx'], {
    forbidLayers: ['server', 'main'],
    forbidNode: true,
    forbidPackages: ['express', 'better-sqlite3', 'pino', 'electron'],
  }),
  { files: ['renderer/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['scripts/**', 'bench/**', 'e2e/**', 'test/**', '**/*.test.ts'], rules: { 'no-console': 'off' } },
  // A CommonJS package: face-api's Node build require()s it, which Node 20 cannot do of an ES module.
  {
    files: ['scripts/tfjs-umbrella/**'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
