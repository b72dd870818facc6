import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The capture components as one ES module (plus Human's chunk, loaded on first use) for other
// front ends on the LAN: served by the station at /embed/ (docs/capture-components.md).
// Runs after the console build, which empties dist/renderer.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer/embed', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    lib: {
      entry: fileURLToPath(new URL('src/capture/embed.ts', import.meta.url)),
      formats: ['es'],
      fileName: () => 'enrolla-capture.js',
    },
  },
  esbuild: { jsx: 'automatic' },
});
