import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { ENV } from '../../cdk/constructs/environment.js';
import { CONSTRUCT_IDS } from '../../cdk/stacks/harness-stack.js';
import {
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  tempOutdir,
} from './support/synth.js';

const TOKEN_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tickets-token-AbCdEf';
const CLIENT_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:crm-client-GhIjKl';

/** Two servers: one behind a bearer token, one behind OAuth 2.0 client credentials. */
const SERVERS = {
  tickets: {
    url: 'https://tickets.example.com/mcp',
    auth: { type: 'bearer', token: { secretArn: TOKEN_SECRET } },
    tools: ['get_ticket'],
  },
  crm: {
    url: 'https://crm.example.com/mcp',
    auth: {
      type: 'oauth2',
      tokenUrl: 'https://auth.example.com/oauth2/token',
      clientId: 'harness',
      clientSecret: { secretArn: CLIENT_SECRET },
      scope: 'crm/read',
    },
    tools: ['find_customer'],
  },
};

const { template } = synthHarness({ mcpServers: SERVERS });
const plain = synthHarness().template;

const FUNCTIONS = Object.entries(CONSTRUCT_IDS)
  .filter(([key]) => key.endsWith('Function'))
  .map(([, id]) => id);
/** The turn step lists the servers' tools for the model; the tool step calls them. */
const STEPS: string[] = ['TurnStepFunction', 'ToolStepFunction'];

const variablesOf = (tpl: typeof template, path: string) =>
  (resourceAt(tpl, path).Properties!.Environment as { Variables: Record<string, unknown> })
    .Variables;

const secretReads = (tpl: typeof template, path: string) =>
  statementsOfRole(tpl, logicalIdAt(tpl, `${path}Role`)).filter((statement) =>
    statement.actions.includes('secretsmanager:GetSecretValue')
  );

describe('CDK context mcpServers', () => {
  it('gives the servers to the turn and tool steps alone, as JSON', () => {
    for (const path of STEPS) {
      expect(JSON.parse(variablesOf(template, path)[ENV.mcpServers] as string), path).toEqual(
        SERVERS
      );
      expect(variablesOf(plain, path)[ENV.mcpServers], path).toBeUndefined();
    }
    for (const path of FUNCTIONS.filter((id) => !STEPS.includes(id))) {
      expect(variablesOf(template, path)[ENV.mcpServers], path).toBeUndefined();
    }
  });

  it('lets the steps read exactly the secrets the servers name, and no other function', () => {
    for (const path of STEPS) {
      expect(secretReads(template, path), path).toEqual([
        {
          effect: 'Allow',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [CLIENT_SECRET, TOKEN_SECRET].sort(),
        },
      ]);
      expect(secretReads(plain, path), path).toEqual([]);
    }
    for (const path of FUNCTIONS.filter((id) => !STEPS.includes(id))) {
      const reads = secretReads(template, path).flatMap((statement) => statement.resources);
      expect(reads, path).not.toContain(TOKEN_SECRET);
      expect(reads, path).not.toContain(CLIENT_SECRET);
    }
  });

  const outdir = tempOutdir();
  it('leaves cdk-nag nothing to report', () => {
    const { app } = buildApp({ outdir, bundle: false, context: { mcpServers: SERVERS } });
    expect(() => app.synth()).not.toThrow();
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });
});

describe("docs/deploy.md's MCP walk-through", () => {
  const page = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const walkThrough = page.slice(page.indexOf('## Walk-through: MCP servers'));
  const snippet = walkThrough.match(/```json\n([\s\S]*?)```/)?.[1];

  it('synthesizes as cdk.json gives it, the steps reading exactly the secrets it names', () => {
    expect(snippet).toBeDefined();
    const { mcpServers } = JSON.parse(snippet ?? '{}') as { mcpServers: Record<string, unknown> };
    const synthesized = synthHarness({ mcpServers }).template;
    expect(Object.keys(mcpServers)).toEqual(['tickets', 'crm']);
    for (const path of STEPS) {
      expect(secretReads(synthesized, path), path).toEqual([
        {
          effect: 'Allow',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [
            'arn:aws:secretsmanager:eu-west-1:123456789012:secret:crm-client-GhIjKl',
            'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tickets-token-AbCdEf',
          ],
        },
      ]);
    }
  });
});
