import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/polyfill.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: the DynamoDB Local and CDK synth suites are heavy, keep parallelism modest.
    maxWorkers: 2,
  },
});
