/**
 * The turn step as `cdk synth` bundles it (the esbuild CLI, with the define and the left-out
 * modules of cdk/constructs/harness-function.ts), run in a fresh Node against a real MCP server
 * on loopback: with `mcpServers` its bundle connects the server and lists its tools (the SDK's
 * client, given the harness's validator: Ajv is not in the bundle); without, it says so.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessFunction, handlerEntry } from '../../cdk/constructs/harness-function.js';
import { startNotesOverHttp, TOKEN } from '../support/mcp-notes-http.js';
import { tempOutdir } from './support/synth.js';

const run = promisify(execFile);

/** The turn step's index.mjs, bundled by CDK for `demo`, with or without MCP servers. */
const bundleTurnStep = (outdir: string, mcpServers: boolean): string => {
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  new HarnessFunction(new Stack(app, 'Probe'), 'TurnStep', {
    entry: handlerEntry('turn-step'),
    description: 'probe',
    timeout: Duration.seconds(30),
    modelProvider: 'demo',
    mcpServers,
  });
  app.synth();
  const asset = readdirSync(outdir).find(
    (name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.mjs'))
  );
  if (asset === undefined) throw new Error('no bundle');
  return join(outdir, asset, 'index.mjs');
};

/**
 * One turn step of the bundle's handler in a fresh `node`: its runtime is built (the MCP servers
 * connected), then the step fails at its first read of the table, which is not there.
 */
const invoke = async (bundle: string, env: Record<string, string>) => {
  const script = `const { handler } = await import(${JSON.stringify(bundle)});
try { await handler({ op: 'turn', ref: { taskId: 'task-1', generation: 1, turn: 0 } }, {}); console.log('RESULT ok'); }
catch (error) { console.log('RESULT ' + error.name + ': ' + error.message.split('\\n')[0]); }
process.exit(0);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      TINY_HARNESS_TABLE: 't',
      TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
      TINY_HARNESS_DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'none',
      AWS_SECRET_ACCESS_KEY: 'none',
      AWS_MAX_ATTEMPTS: '1',
      ...env,
    },
    timeout: 60_000,
  });
  return stdout;
};

describe('the turn step bundled by cdk synth, against an MCP server on loopback (slow)', () => {
  const outdirs = { mcp: tempOutdir(), plain: tempOutdir() };
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
  });
  afterAll(async () => {
    await notes.close();
  });

  const servers = () =>
    JSON.stringify({
      notes: {
        url: notes.url,
        auth: { type: 'bearer', token: { env: 'NOTES_TOKEN' } },
        tools: ['get_note', 'delete_note'],
      },
    });

  it('with mcpServers: connects the server and lists its tools at the first invocation', {
    timeout: 120_000,
  }, async () => {
    const bundle = bundleTurnStep(outdirs.mcp, true);
    const code = readFileSync(bundle, 'utf8');
    expect(code).toContain('Ajv is not in this Lambda bundle');
    // Ajv's own error messages ("must NOT have fewer than 1 characters") are not in it.
    expect(code).not.toContain('must NOT have');

    const stdout = await invoke(bundle, {
      TINY_HARNESS_MCP_SERVERS: servers(),
      NOTES_TOKEN: TOKEN,
    });

    const listed = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'MCP tools listed');
    expect(listed).toMatchObject({ mcpServer: 'notes', offered: ['get_note', 'delete_note'] });
    expect(notes.authorizations).toContain(`Bearer ${TOKEN}`);
    // The runtime was built with the tools; the step then failed at the table.
    expect(stdout).toMatch(/^RESULT TransientServiceError: .*ECONNREFUSED 127\.0\.0\.1:9$/m);
    expect(stdout).not.toContain(TOKEN);
  });

  it('without: holds no MCP client, and says so when servers are configured anyway', {
    timeout: 120_000,
  }, async () => {
    const bundle = bundleTurnStep(outdirs.plain, false);
    expect(readFileSync(bundle, 'utf8')).not.toContain('StreamableHTTPClientTransport');
    const before = notes.authorizations.length;

    const stdout = await invoke(bundle, {
      TINY_HARNESS_MCP_SERVERS: servers(),
      NOTES_TOKEN: TOKEN,
    });

    expect(stdout).toMatch(
      /^RESULT ConfigurationError: TINY_HARNESS_MCP_SERVERS is set, but this bundle holds no MCP client/m
    );
    expect(notes.authorizations).toHaveLength(before);
  });
});
