import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'common/**/*.test.ts',
      'server/**/*.test.ts',
      'main/**/*.test.ts',
      'e2e/**/*.test.ts',
      'test/**/*.test.ts',
      'bench/**/*.test.ts',

      'renderer/**/*.test.ts',
    ],
    pool: 'forks',
    // Two cores: more parallel files only add contention to the engines' timing.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
