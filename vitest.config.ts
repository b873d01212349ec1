import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup/polyfill.ts'],
    // The AWS SDK's notice that its 2027 releases need Node 22 says nothing about our tests.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: the DynamoDB Local and CDK synth suites are heavy, keep parallelism modest.
    maxWorkers: 2,
  },
});
