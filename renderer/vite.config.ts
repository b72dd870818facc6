import { fileURLToPath } from 'node:url';
import { defineConfig, type UserConfig } from 'vite';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

// The console is served by the station itself (same origin as the API), so no proxy or CORS.
const consoleBuild: UserConfig = {
  root: here('.'),
  base: './',
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // The console, and the standalone page of the capture components (docs/capture-components.md).
    rollupOptions: { input: { main: here('index.html'), capture: here('capture.html') } },
  },
  esbuild: { jsx: 'automatic' },
};

// `--mode embed`: the capture components as one ES module (plus Human's chunk, loaded on first
// use) for other front ends on the LAN, served by the station at /embed/. Runs after the console
// build, which empties dist/renderer.
const embedBuild: UserConfig = {
  root: here('.'),
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: here('../dist/renderer/embed'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    lib: { entry: here('src/capture/embed.ts'), formats: ['es'], fileName: () => 'enrolla-capture.js' },
  },
  esbuild: { jsx: 'automatic' },
};

export default defineConfig(({ mode }) => (mode === 'embed' ? embedBuild : consoleBuild));
