/**
 * SLOW (the real `npx cdk synth`, bundling on): what `npx cdk synth | head -2` reads. The
 * template is the command's stdout and nothing else; the app's own progress (the web renderer's
 * build check) goes to stderr.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempOutdir } from './support/synth.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npx cdk synth on a pipe', () => {
  const outdir = tempOutdir('tiny-harness-synth-stdout-');

  it('writes the template alone to stdout, and its progress to stderr', {
    timeout: 240_000,
  }, async () => {
    const { stdout, stderr } = await run('npx', ['cdk', 'synth', '--no-notices', '-o', outdir], {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_EC2_METADATA_DISABLED: 'true',
        CDK_DISABLE_VERSION_CHECK: 'true',
        CDK_DISABLE_CLI_TELEMETRY: 'true',
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    const template = JSON.parse(
      readFileSync(join(outdir, 'TinyHarness-dev.template.json'), 'utf8')
    ) as Record<string, unknown>;
    // The YAML CDK prints: its first line is the template's first top-level key, and every
    // unindented line is one of the template's keys (a progress line would not be).
    const [first = ''] = stdout.split('\n');
    expect(first.startsWith(`${Object.keys(template)[0]}:`), first).toBe(true);
    const topLevel = stdout
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.replace(/:.*$/, ''));
    expect(topLevel).toContain('Resources');
    // (The CLI leaves out the bootstrap version's Rules; nothing else is printed at the top.)
    for (const key of topLevel) expect(Object.keys(template)).toContain(key);
    expect(stderr).toMatch(/^web: /m);
  });
});
