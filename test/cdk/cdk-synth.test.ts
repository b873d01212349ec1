/**
 * SLOW (about 15-30 s): the real `npx cdk synth` with bundling ON, as `cdk deploy` would run it:
 * esbuild bundles the six handlers locally (no Docker), CDK's CloudFormation validation and
 * cdk-nag run, and nothing touches AWS.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { handlerEntry } from '../../cdk/constructs/harness-function.js';
import { BUNDLE_BUDGET_BYTES, LAMBDA_HANDLERS } from '../../cdk/lambda-bundle.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import { tempOutdir } from './support/synth.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HANDLERS = LAMBDA_HANDLERS;

/** A stand-in for a value CloudFormation resolves at deploy time (a Ref, a GetAtt, a Join). */
const placeholderFor = (name: string): string => {
  if (name.endsWith('_ARN'))
    return 'arn:aws:states:us-east-1:000000000000:stateMachine:TinyHarness-dev-turns';
  if (name.endsWith('_URL')) return 'https://a2a.example.com/dev';
  if (name.endsWith('_ORIGIN')) return 'https://d111111abcdef8.cloudfront.net';
  if (name.endsWith('_KMS_KEY_ID'))
    return 'arn:aws:kms:us-east-1:000000000000:key/00000000-0000-0000-0000-000000000000';
  return 'tiny-harness-dev';
};

describe('cdk synth (bundling on, slow)', () => {
  const outdir = tempOutdir('tiny-harness-synth-');
  const localOutdir = tempOutdir();

  it('bundles every handler and synthesizes the deployable assembly', {
    timeout: 240_000,
  }, async () => {
    // Bundling reads the entries: they must exist (no skipping).
    for (const name of HANDLERS) expect(existsSync(handlerEntry(name)), name).toBe(true);

    const started = Date.now();
    // A model that needs its key from Secrets Manager: only the turn step may depend on it.
    const model = [
      ...['-c', 'modelProvider=openai', '-c', 'model=gpt-5'],
      ...[
        '-c',
        'modelApiKeySecret=arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-AbCdEf',
      ],
    ];
    await run('npx', ['cdk', 'synth', '--quiet', '--no-notices', ...model, '--output', outdir], {
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

    // Staged directories; file assets (the bucket deployment's AWS CLI layer, a zip) aside.
    const assets = readdirSync(outdir).filter(
      (entry) => entry.startsWith('asset.') && statSync(join(outdir, entry)).isDirectory()
    );
    const has = (asset: string, file: string) => existsSync(join(outdir, asset, file));
    // The web renderer's build is deployed too: the page (with no assets folder) and its assets.
    const [page, ...otherPages] = assets.filter((asset) => has(asset, 'index.html'));
    expect(otherPages).toEqual([]);
    expect(has(page!, 'assets')).toBe(false);
    expect(
      assets.some((asset) =>
        readdirSync(join(outdir, asset)).some((file) => /^index-[\w-]+\.js$/.test(file))
      )
    ).toBe(true);
    const bundles = assets.filter((asset) => has(asset, 'index.mjs'));
    expect(bundles).toHaveLength(HANDLERS.length);
    for (const asset of bundles) {
      const bundle = join(outdir, asset, 'index.mjs');
      expect(readFileSync(bundle, 'utf8')).toMatch(
        /^import\s*\{\s*createRequire as __thCreateRequire\s*\}/
      );
      expect(existsSync(`${bundle}.map`)).toBe(true);
      // Within the budget test/cdk/bundles.test.ts holds the in-memory bundles to.
      expect(statSync(bundle).size, asset).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
      // The ESM bundle loads in plain Node and exports the handler.
      const { stdout } = await run(process.execPath, [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.handler);`,
      ]);
      expect(stdout.trim(), asset).toBe('function');
    }

    // The agent card answers from the A2A bundle with exactly the environment the stack gives
    // it, whatever the model's configuration (the A2A function is given none).
    const deployed = JSON.parse(
      readFileSync(join(outdir, 'TinyHarness-dev.template.json'), 'utf8')
    ) as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
    const [a2a] = Object.values(deployed.Resources).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        String(resource.Properties?.Description).includes('the A2A endpoint')
    );
    const variables = (a2a!.Properties!.Environment as { Variables: Record<string, unknown> })
      .Variables;
    const asDeployed = Object.fromEntries(
      Object.entries(variables).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : placeholderFor(name),
      ])
    );
    expect(Object.keys(asDeployed).filter((name) => name.startsWith('TINY_HARNESS_MODEL'))).toEqual(
      []
    );
    const a2aAsset = (a2a!.Properties!.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
    const { stdout: card } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { handler } = await import(${JSON.stringify(join(outdir, `asset.${a2aAsset}`, 'index.mjs'))});
         const answer = await handler({ httpMethod: 'GET', path: '/.well-known/agent-card.json', headers: {}, requestContext: { stage: 'dev' } }, {});
         console.log(JSON.stringify({ statusCode: answer.statusCode, name: JSON.parse(answer.body).name }));`,
      ],
      { env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', ...asDeployed } }
    );
    expect(JSON.parse(card.trim().split('\n').at(-1)!)).toEqual({
      statusCode: 200,
      name: 'tiny-harness',
    });

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
