/**
 * SLOW (about 15-30 s): the real `npx cdk synth` with bundling ON, as `cdk deploy` would run it:
 * esbuild bundles the five handlers locally (no Docker), CDK's CloudFormation validation and
 * cdk-nag run, and nothing touches AWS.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { handlerEntry } from '../../cdk/constructs/harness-function.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import { tempOutdir } from './support/synth.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HANDLERS = ['turn-step', 'stream', 'a2a', 'push', 'archive'];

describe('cdk synth (bundling on, slow)', () => {
  const outdir = tempOutdir('tiny-harness-synth-');
  const localOutdir = tempOutdir();

  it('bundles every handler and synthesizes the deployable assembly', {
    timeout: 240_000,
  }, async () => {
    // Bundling reads the entries: they must exist (no skipping).
    for (const name of HANDLERS) expect(existsSync(handlerEntry(name)), name).toBe(true);

    const started = Date.now();
    await run('npx', ['cdk', 'synth', '--quiet', '--no-notices', '--output', outdir], {
      cwd: ROOT,
      env: {
        ...process.env,
        // Never probe the instance-metadata address for credentials; no CLI chatter.
        AWS_EC2_METADATA_DISABLED: 'true',
        CDK_DISABLE_VERSION_CHECK: 'true',
        CDK_DISABLE_CLI_TELEMETRY: 'true',
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    console.info(`cdk synth with bundling: ${Date.now() - started} ms`);

    const assets = readdirSync(outdir).filter((entry) => entry.startsWith('asset.'));
    expect(assets).toHaveLength(HANDLERS.length);
    for (const asset of assets) {
      const bundle = join(outdir, asset, 'index.mjs');
      expect(readFileSync(bundle, 'utf8')).toMatch(
        /^import\s*\{\s*createRequire as __thCreateRequire\s*\}/
      );
      expect(existsSync(`${bundle}.map`)).toBe(true);
      // The ESM bundle loads in plain Node and exports the handler.
      const { stdout } = await run(process.execPath, [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.handler);`,
      ]);
      expect(stdout.trim(), asset).toBe('function');
    }

    // The deployable definition is the one the local runtime reads from a bundling-off synth.
    const template = JSON.parse(
      readFileSync(join(outdir, 'TinyHarness-dev.template.json'), 'utf8')
    );
    const { app, stack } = buildApp({ bundle: false, outdir: localOutdir });
    const local = app.synth().getStackArtifact(stack.artifactId).template;
    expect(extractStateMachines(template)[0]!.definition).toEqual(
      extractStateMachines(local)[0]!.definition
    );
  });
});
