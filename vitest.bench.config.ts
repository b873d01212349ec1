import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:bench`: the whole benchmark on a tiny run (about a minute on two cores: two
 * local stacks start), kept out of `npm test`, which checks the benchmark's parts and its docs.
 */
export default defineConfig({
  test: { ...base.test, include: ['test/scripts/*.e2e.ts'] },
});
