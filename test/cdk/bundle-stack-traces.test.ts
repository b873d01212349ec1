/**
 * A deployed bundle's stack traces point at the TypeScript sources, through its source map, read
 * at the first stack trace (functions/adapters/system/lazy-source-maps.ts), not at import.
 */
import { execFile } from 'node:child_process';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bundleHandler, writeBundle } from '../../cdk/lambda-bundle.js';
import { tempOutdir } from './support/synth.js';

const run = promisify(execFile);

/** The line `needle` is on in a source file (1-based). */
const lineOf = (file: string, needle: string): number =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(needle)) + 1;

/**
 * Imports the bundle in a fresh Node with no configuration, as Lambda would with none, and
 * prints the stack of the error its first invocation throws; `beforeError` runs in between.
 */
const firstErrorStack = async (bundle: string, beforeError = '') => {
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { handler } = await import(${JSON.stringify(bundle)});
       ${beforeError}
       try { await handler({ Records: [] }, { getRemainingTimeInMillis: () => 60_000 }); }
       catch (error) { console.log(error.stack); }`,
    ],
    { env: { PATH: process.env.PATH } }
  );
  return stdout;
};

describe('the stack traces of a Lambda bundle', () => {
  const dir = tempOutdir('tiny-harness-bundle-');

  it('point at the sources, with the map read at the first error and not before', {
    timeout: 60_000,
  }, async () => {
    const bundle = writeBundle(await bundleHandler('push'), join(dir, 'push'));
    const thrownAt = lineOf(
      'functions/composition/runtime-config.ts',
      'throw new ConfigurationError('
    );

    const mapped = await firstErrorStack(bundle);
    expect(mapped).toMatch(/^ConfigurationError: invalid tiny-harness configuration: /);
    expect(mapped).toContain(`(functions/composition/runtime-config.ts:${thrownAt}:`);
    expect(mapped).not.toContain('index.mjs:');

    // The map moved away after the import, before the error: had the import read it, the trace
    // would still be mapped.
    const unmapped = await firstErrorStack(
      bundle,
      `(await import('node:fs')).renameSync(${JSON.stringify(`${bundle}.map`)}, ${JSON.stringify(`${bundle}.map.away`)});`
    );
    expect(unmapped).toMatch(/^ConfigurationError: /);
    expect(unmapped).toContain(`${bundle}:`);
    expect(unmapped).not.toContain('runtime-config.ts');
    renameSync(`${bundle}.map.away`, `${bundle}.map`);
  });
});
