import { defineConfig } from 'vitest/config';

// Unit tests sit beside their source; integration suites live under test/integration.
// End-to-end suites (real Jaeger, real collector) run through vitest.e2e.config.ts.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/integration/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
