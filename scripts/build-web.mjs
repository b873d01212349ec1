#!/usr/bin/env node
// Builds the web renderer into web/dist: the types and validators generated from schemas/, then
// `vite build` (which prints the first-load JavaScript, gzipped, and fails over its budget).
// `npm run setup` (and so `npm start` and `npm test`) runs it; it rebuilds only when what the page
// is made of changed since the last build (`--force` always builds). `npm run web:build`.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateWebSchemas } from './generate-web-schemas.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'web/dist');
const stampFile = join(root, '.local/web-build.json');

/** What the page is built from: a change to any of these rebuilds it. */
const INPUTS = [
  'web/index.html',
  'web/vite.config.ts',
  'web/budget.ts',
  'web/public',
  'web/src',
  'functions/view',
  'functions/core',
  'schemas',
  'docs/a2a/ext/timeline.json',
  'package-lock.json',
  'scripts/build-web.mjs',
  'scripts/generate-web-schemas.mjs',
];

const filesUnder = (path) => {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => (name === 'generated' ? [] : filesUnder(`${path}/${name}`)));
};

const inputHash = () => {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
  }
  return hash.digest('hex');
};

const readStamp = () => {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
};

/**
 * Builds the page when its inputs changed. Whatever it reports goes to stderr, Vite's budget
 * report included: stdout belongs to the caller (`cdk synth`'s is the template, and
 * `npx cdk synth | head` must read the template alone).
 */
export const buildWeb = async ({ force = false } = {}) => {
  const log = console.log;
  console.log = console.error;
  try {
    await build(force);
  } finally {
    console.log = log;
  }
};

const build = async (force) => {
  const written = await generateWebSchemas();
  const hash = inputHash();
  if (!force && readStamp()?.hash === hash && existsSync(join(dist, 'index.html'))) {
    console.log(`web: ${relative(root, dist)} is up to date`);
    return;
  }
  if (written.length > 0) console.log(`web: generated ${written.length} file(s) from the schemas`);
  const started = Date.now();
  const vite = await import('vite');
  // The page is always the production build: Vite keeps a NODE_ENV already set, and under vitest
  // (the browser tests build it) that is `test`, which would ship React's development build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({
      configFile: join(root, 'web/vite.config.ts'),
      logLevel: 'warn',
      mode: 'production',
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${JSON.stringify({ hash, builtAt: new Date().toISOString() })}\n`);
  console.log(
    `web: built ${relative(root, dist)} in ${((Date.now() - started) / 1000).toFixed(1)} s`
  );
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await buildWeb({ force: process.argv.includes('--force') });
  } catch (error) {
    console.error(`web: the build failed: ${error.message}`);
    process.exit(1);
  }
}
