// Lint, including the layering rules: common <- server, renderer <- main.
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
  layer(['server/**/*.ts'], { forbidLayers: ['renderer', 'main'], forbidPackages: ['electron', 'react', 'react-dom'] }),
  // Below the search index and the engines: what stores the gallery, and the sealing it uses.
  layer(['server/storage/**/*.ts', 'server/threads/**/*.ts'], {
    forbidLayers: ['renderer', 'main', 'search', 'engines', 'gallery-index', 'operations', 'http'],
    forbidPackages: ['electron', 'react', 'react-dom'],
  }),
  layer(['server/crypto/**/*.ts'], {
    forbidLayers: ['renderer', 'main', 'storage', 'search', 'engines', 'gallery-index', 'operations', 'http'],
    forbidPackages: ['electron', 'react', 'react-dom', 'better-sqlite3', 'pg'],
  }),
  layer(['renderer/**/*.ts', 'renderer/**/*.tsx'], {
    forbidLayers: ['server', 'main'],
    forbidNode: true,
    forbidPackages: ['express', 'better-sqlite3', 'pino', 'electron'],
  }),
  { files: ['renderer/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['scripts/**', 'bench/**', 'e2e/**', 'test/**', '**/*.test.ts'], rules: { 'no-console': 'off' } },
);
