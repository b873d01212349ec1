/**
 * The web renderer's build: `npm run web:build` (scripts/build-web.mjs) writes web/dist, which
 * `npm start` serves at / and the CDK app deploys. The first-load budget is checked on every build.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { firstLoadBudget } from './budget.js';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), firstLoadBudget()],
  build: {
    outDir: resolve(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // The report above says what counts; Vite's own size warning would only repeat it.
    chunkSizeWarningLimit: 1000,
  },
});
