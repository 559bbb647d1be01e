import { defineConfig } from 'vitest/config';

// Tests start real daemon processes; give them room, and run files in parallel forks.
// ENGRAM_TEST_REPORT=<file> also writes vitest's JSON report there (.ci/run reads the counts).
const report = process.env.ENGRAM_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most of a test's time is spent waiting on the daemon processes it starts, so three test
    // files at a time fit two cores (vitest's default here would be one).
    maxWorkers: 3,
    globalSetup: ['test/fixtures/global-setup.ts'],
    reporters: report ? ['default', ['json', { outputFile: report }]] : ['default'],
  },
});
