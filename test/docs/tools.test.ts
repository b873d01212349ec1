import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRuntimeConfig } from '../../functions/composition/runtime-config.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import {
  SAMPLE_TOOLS_LINE,
  sampleMcpServers,
} from '../../functions/local/sample-mcp/default-servers.js';
import { bearerTokensFor, tokenFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/tools.md'), 'utf8');
const blocks = (lang: string) =>
  [...PAGE.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === lang)
    .map((match) => match[2] ?? '');

/**
 * docs/tools.md as a reader uses it: the shell snippets run in order, in one shell, against the
 * local stack with the sample notes server as `npm start` configures it (the built-in demo model);
 * the policy example is a configuration the runtime takes; the banner line is the banner's.
 */
describe('docs/tools.md', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(['you']),
        TINY_HARNESS_MCP_SERVERS: sampleMcpServers(undefined, {}),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('runs the "Try it" snippets: the call waits for approval, then runs once approved', async () => {
    const snippets = blocks('sh');
    expect(snippets).toHaveLength(2);
    const { stdout } = await run('bash', ['-c', snippets.join('\n')], {
      env: { ...process.env, A2A_URL: stack.url, A2A_TOKEN: tokenFor('you') },
    });
    expect(stdout).toMatch(
      /^awaiting-approval\nApproval needed before this tool call can run:\n- demo-call-\d+: notes__delete_note \{"id":"n1"\} \(approvers: reporter, admin\)\n/
    );
    expect(stdout).toContain('Options: approve, reject\n');
    expect(stdout).toContain(
      '(demo model) notes__delete_note answered:\nno note n1: nothing deleted'
    );
    // What the page shows as their output is what they print, but for the call id and deadline.
    const shown = blocks('');
    expect(shown[1]?.replace(/demo-call-\d+/, '').replace(/by \S+Z,/, '')).toBe(
      stdout
        .split('(demo model)')[0]
        ?.replace(/demo-call-\d+/, '')
        .replace(/by \S+Z,/, '')
    );
    expect(shown[2]).toBe(`(demo model)${stdout.split('(demo model)')[1]}`);
  }, 60_000);

  it('gives a policy example the runtime takes, and the banner line npm start prints', () => {
    const example = blocks('json')[0];
    const config = readRuntimeConfig({
      TINY_HARNESS_TABLE: 't',
      TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
      TINY_HARNESS_MCP_SERVERS: example,
    });
    expect(config.TINY_HARNESS_MCP_SERVERS.notes?.approval).toEqual({
      require: ['put_note', 'delete_note'],
      approvers: ['admin'],
      timeoutSeconds: 600,
    });
    expect(blocks('')[0]).toBe(`  tools          ${SAMPLE_TOOLS_LINE}\n`);
  });
});
