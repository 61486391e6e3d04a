import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // Builds the span export worker the in-process gateways use (see the file).
    globalSetup: ['test/e2e/export-worker-build.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
