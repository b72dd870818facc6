import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the station itself (same origin as the API), so no proxy or CORS.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
  esbuild: { jsx: 'automatic' },
});
