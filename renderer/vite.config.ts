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
    // The console, and the standalone page of the capture components (docs/capture-components.md).
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        capture: fileURLToPath(new URL('capture.html', import.meta.url)),
      },
    },
  },
  esbuild: { jsx: 'automatic' },
});
