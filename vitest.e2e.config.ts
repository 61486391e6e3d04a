import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
