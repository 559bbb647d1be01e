import { defineConfig } from 'vitest/config';

// Tests start real daemon processes; give them room, and run files in parallel forks.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/fixtures/global-setup.ts'],
  },
});
