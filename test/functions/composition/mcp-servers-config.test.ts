import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';

const BASE = {
  TINY_HARNESS_TABLE: 't',
  TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
};

const withServers = (servers: unknown, env: Record<string, string> = {}) =>
  readRuntimeConfig({ ...BASE, TINY_HARNESS_MCP_SERVERS: JSON.stringify(servers), ...env });

const refusal = (servers: unknown, env: Record<string, string> = {}): string => {
  try {
    withServers(servers, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('the MCP servers, from the environment', () => {
  it('reads HTTP and stdio servers with their defaults, and keeps the bearer token a secret', () => {
    const config = withServers(
      {
        tickets: {
          url: 'https://tickets.example.com/mcp',
          auth: { type: 'bearer', token: { env: 'TICKETS_TOKEN' } },
          tools: ['get_ticket'],
        },
        notes: { command: 'node', args: ['notes.js'], tools: ['get_note'] },
      },
      { TICKETS_TOKEN: 'tok-123' }
    );
    expect(config.TINY_HARNESS_MCP_SERVERS).toEqual({
      tickets: {
        url: 'https://tickets.example.com/mcp',
        auth: { type: 'bearer', token: { env: 'TICKETS_TOKEN' } },
        tools: ['get_ticket'],
        maxResultChars: 16_000,
        approval: {
          require: 'destructive',
          approvers: ['reporter', 'admin'],
          timeoutSeconds: 3600,
        },
      },
      notes: {
        command: 'node',
        args: ['notes.js'],
        env: {},
        tools: ['get_note'],
        maxResultChars: 16_000,
        approval: {
          require: 'destructive',
          approvers: ['reporter', 'admin'],
          timeoutSeconds: 3600,
        },
      },
    });
    expect(config.mcpServerSecrets.get('TICKETS_TOKEN')).toBe('tok-123');
    expect(configuredSecrets(config)).toContain('tok-123');
  });

  it('reads OAuth 2.0 client credentials and secrets from Secrets Manager; an unset client secret variable is refused, named', () => {
    const crm = {
      url: 'https://crm.example.com/mcp',
      auth: {
        type: 'oauth2',
        tokenUrl: 'https://auth.example.com/oauth2/token',
        clientId: 'harness',
        clientSecret: { env: 'CRM_SECRET' },
        scope: 'crm/read',
      },
      tools: ['find_customer'],
    };
    const tickets = {
      url: 'https://tickets.example.com/mcp',
      auth: {
        type: 'bearer',
        token: { secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:t-AbCdEf' },
      },
      tools: ['get_ticket'],
    };
    const config = withServers({ crm, tickets }, { CRM_SECRET: 's3cret' });
    expect(config.TINY_HARNESS_MCP_SERVERS.crm).toEqual({
      ...crm,
      maxResultChars: 16_000,
      approval: { require: 'destructive', approvers: ['reporter', 'admin'], timeoutSeconds: 3600 },
    });
    expect(configuredSecrets(config)).toContain('s3cret');
    expect(refusal({ crm })).toBe(
      'invalid tiny-harness configuration: TINY_HARNESS_MCP_SERVERS: crm.auth.clientSecret names CRM_SECRET, which is not set'
    );
  });

  it('reads an approval policy, and refuses one that names a tool off the allow-list or a watcher', () => {
    const approval = { require: ['delete_note'], approvers: ['admin'], timeoutSeconds: 120 };
    const config = withServers({
      notes: { command: 'node', tools: ['get_note', 'delete_note'], approval },
    });
    expect(config.TINY_HARNESS_MCP_SERVERS.notes?.approval).toEqual(approval);
    expect(
      refusal({
        notes: { command: 'node', tools: ['get_note'], approval: { require: ['delete'] } },
      })
    ).toMatch(/notes\.approval\.require: delete is not in tools \(the allow-list\)/);
    expect(
      refusal({
        notes: { command: 'node', tools: ['get_note'], approval: { approvers: ['watcher'] } },
      })
    ).toMatch(/TINY_HARNESS_MCP_SERVERS: notes: /);
    expect(
      refusal({ notes: { command: 'node', tools: ['x'], approval: { timeoutSeconds: 0 } } })
    ).toMatch(/notes\.approval\.timeoutSeconds: Too small/);
  });

  it('is no server when unset', () => {
    expect(readRuntimeConfig(BASE).TINY_HARNESS_MCP_SERVERS).toEqual({});
  });

  it('refuses a token variable that is not set, naming it', () => {
    expect(
      refusal({
        tickets: {
          url: 'https://tickets.example.com/mcp',
          auth: { type: 'bearer', token: { env: 'NOPE' } },
          tools: ['a'],
        },
      })
    ).toBe(
      'invalid tiny-harness configuration: TINY_HARNESS_MCP_SERVERS: tickets.auth.token names NOPE, which is not set'
    );
  });

  it('refuses a server name that could not prefix a tool name, and an empty allow-list', () => {
    expect(refusal({ My_Server: { command: 'x', tools: ['a'] } })).toMatch(
      /TINY_HARNESS_MCP_SERVERS: My_Server: not a server name/
    );
    expect(refusal({ notes: { command: 'x', tools: [] } })).toMatch(
      /TINY_HARNESS_MCP_SERVERS: .*notes/
    );
    expect(refusal('not an object')).toMatch(/TINY_HARNESS_MCP_SERVERS/);
  });

  it('takes the example docs/configuration.md gives', () => {
    const docs = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const example = docs.split('### MCP servers')[1]?.match(/```json\n([\s\S]*?)```/)?.[1];
    expect(example).toBeDefined();
    const config = readRuntimeConfig({
      ...BASE,
      TINY_HARNESS_MCP_SERVERS: example,
      TICKETS_TOKEN: 't',
    });
    expect(Object.keys(config.TINY_HARNESS_MCP_SERVERS)).toEqual(['tickets', 'notes']);
  });
});
