import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { ConfigurationError } from '../../cdk/config.js';
import { readRuntimeConfig } from '../../functions/composition/runtime-config.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tiny-harness/openai-AbCdEf';

/** The error `cdk synth` would stop with for this context (bundling off: the same checks). */
const refusal = (context: Record<string, unknown>, region?: string): Error => {
  try {
    buildApp({ bundle: false, context: { stage: 'test', ...context }, region });
  } catch (error) {
    return error as Error;
  }
  throw new Error(`synthesis accepted ${JSON.stringify(context)}`);
};

describe('synthesis refuses a bad configuration with one line naming what to set', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a stage Cognito would refuse in its domain prefix',
      { stage: 'aws-prod' },
      /^invalid CDK context: stage: may not contain "aws", "amazon" or "cognito"/,
    ],
    [
      'a stage with a space',
      { stage: 'no spaces' },
      /^invalid CDK context: stage: letters, digits/,
    ],
    [
      'the scripted model, which needs a file a Lambda does not have',
      { modelProvider: 'scripted' },
      /^invalid CDK context: modelProvider=scripted replays a local script file, which a Lambda function does not have/,
    ],
    [
      'a provider that does not exist',
      { modelProvider: 'gpt' },
      /^invalid CDK context: modelProvider: .*"demo".*"bedrock"/,
    ],
    [
      'a real provider without a model id',
      { modelProvider: 'bedrock' },
      /^invalid CDK context: modelProvider=bedrock needs model=<model id>$/,
    ],
    [
      'openai without a key or a base URL',
      { modelProvider: 'openai', model: 'gpt-5' },
      /^invalid CDK context: modelProvider=openai needs an API key: set modelApiKeySecret \(a Secrets Manager secret holding the key\) or modelBaseUrl/,
    ],
    [
      'anthropic without a key',
      { modelProvider: 'anthropic', model: 'claude-sonnet-4-5' },
      /^invalid CDK context: modelProvider=anthropic needs an API key: set modelApiKeySecret/,
    ],
    [
      'a secret named instead of its ARN',
      { modelProvider: 'openai', model: 'gpt-5', modelApiKeySecret: 'tiny-harness/openai' },
      /^invalid CDK context: modelApiKeySecret must be the secret's full ARN, with the six characters/,
    ],
    [
      'a secret ARN without its suffix',
      {
        modelProvider: 'openai',
        model: 'gpt-5',
        modelApiKeySecret:
          'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tiny-harness/openai',
      },
      /^invalid CDK context: modelApiKeySecret must be the secret's full ARN/,
    ],
    [
      'a KMS key that is not a key ARN',
      {
        modelProvider: 'openai',
        model: 'gpt-5',
        modelApiKeySecret: SECRET,
        modelApiKeySecretKmsKey: 'alias/mine',
      },
      /^invalid CDK context: modelApiKeySecretKmsKey: the KMS key's ARN/,
    ],
    [
      'a KMS key without a secret',
      {
        modelApiKeySecretKmsKey:
          'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      },
      /^invalid CDK context: modelApiKeySecretKmsKey is the key of modelApiKeySecret/,
    ],
    [
      'a base URL that is not a URL',
      { modelProvider: 'openai-chat', model: 'local', modelBaseUrl: 'localhost:8000' },
      /^invalid CDK context: modelBaseUrl: /,
    ],
    [
      'a price table that does not parse',
      { modelPrices: '{"m": {"input": "cheap"}}' },
      /^invalid CDK context: modelPrices: not a price table/,
    ],
    [
      'a Bedrock model given as an ARN',
      {
        modelProvider: 'bedrock',
        model: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/x',
      },
      /^invalid CDK context: model: with modelProvider=bedrock, give a model id/,
    ],
    [
      'a negative reservation',
      { turnStepReservedConcurrency: '-1' },
      /^invalid CDK context: turnStepReservedConcurrency: /,
    ],
    ['no stream per caller', { streamsPerCaller: '0' }, /^invalid CDK context: streamsPerCaller: /],
    [
      'a WAF rate under its minimum',
      { callerRequestsPerMinute: '5' },
      /^invalid CDK context: callerRequestsPerMinute: /,
    ],
    [
      "a remote agent's secret from the environment (a Lambda's environment is not a secret store)",
      {
        remoteAgents: {
          ledger: {
            card: 'https://ledger.example.com/.well-known/agent-card.json',
            auth: { type: 'bearer', token: { env: 'LEDGER_TOKEN' } },
          },
        },
      },
      /^invalid CDK context: remoteAgents: ledger\.auth\.token: in a deployment a secret comes from Secrets Manager/,
    ],
    [
      "a remote agent's secret by name, and its card over plain http",
      {
        remoteAgents: JSON.stringify({
          ledger: {
            card: 'http://ledger.example.com/.well-known/agent-card.json',
            auth: {
              type: 'oauth2',
              tokenUrl: 'https://auth.example.com/oauth2/token',
              clientId: 'alpha',
              clientSecret: { secretArn: 'ledger-client' },
            },
          },
        }),
      },
      /^invalid CDK context: remoteAgents: ledger\.auth\.clientSecret: the secret's full ARN.*; remoteAgents: ledger\.card: a deployment calls remote agents over https only$/,
    ],
    [
      'a stdio MCP server (a Lambda function starts no server processes)',
      { mcpServers: { notes: { command: 'node', args: ['notes.js'], tools: ['get_note'] } } },
      /^invalid CDK context: mcpServers: notes: a deployment connects MCP servers over Streamable HTTP only \("url"\); a stdio server \("command"\) is for npm start$/,
    ],
    [
      "an MCP server's token from the environment, its client secret by name, and plain http",
      {
        mcpServers: JSON.stringify({
          tickets: {
            url: 'http://tickets.example.com/mcp',
            auth: { type: 'bearer', token: { env: 'TICKETS_TOKEN' } },
            tools: ['get_ticket'],
          },
          crm: {
            url: 'https://crm.example.com/mcp',
            auth: {
              type: 'oauth2',
              tokenUrl: 'http://auth.example.com/oauth2/token',
              clientId: 'harness',
              clientSecret: { secretArn: 'crm-client' },
            },
            tools: ['find_customer'],
          },
        }),
      },
      /^invalid CDK context: mcpServers: tickets\.auth\.token: in a deployment a secret comes from Secrets Manager.*; mcpServers: crm\.auth\.clientSecret: the secret's full ARN.*; mcpServers: tickets\.url: a deployment calls MCP servers over https only; mcpServers: crm\.auth\.tokenUrl: a deployment calls MCP servers over https only$/,
    ],
    [
      'an MCP servers list that does not parse',
      { mcpServers: '{"Notes": {"url": "https://notes.example.com/mcp"}}' },
      /^invalid CDK context: mcpServers: not an MCP servers list: /,
    ],
    [
      'a deletion protection that is not a boolean',
      { userPoolDeletionProtection: 'off' },
      /^invalid CDK context: userPoolDeletionProtection: true or false$/,
    ],
    [
      'a remote agents directory that does not parse',
      { remoteAgents: '{"Ledger Agent": {"card": "x"}}' },
      /^invalid CDK context: remoteAgents: not a remote agents directory: /,
    ],
  ])('%s', (_, context, message) => {
    const error = refusal(context);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });

  it.each(['cn-north-1', 'us-gov-west-1'])(
    'a region outside the commercial partition (%s)',
    (region) => {
      const error = refusal({}, region);
      expect(error.message).toMatch(
        new RegExp(`^invalid deployment region ${region}: the stack's Cognito user pool`)
      );
    }
  );

  it('accepts each provider configured as the docs walk through it', () => {
    for (const context of [
      { modelProvider: 'bedrock', model: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' },
      { modelProvider: 'openai', model: 'gpt-5', modelApiKeySecret: SECRET },
      { modelProvider: 'openai-chat', model: 'llama', modelBaseUrl: 'https://llm.example.com/v1' },
    ]) {
      expect(() =>
        buildApp({ bundle: false, context: { stage: 'test', ...context } })
      ).not.toThrow();
    }
  });

  it('the CLI prints the one line on stderr, with no stack trace, and exits 1', {
    timeout: 60_000,
  }, async () => {
    const failed = await run('npx', ['tsx', 'cdk/bin/app.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ modelProvider: 'scripted' }),
        CDK_OUTDIR: '/nonexistent/never-written',
      },
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^invalid CDK context: modelProvider=scripted replays a local script file/
      ),
    ]);
  });
});

describe('the runtime reads the model configuration with the same schema', () => {
  const base = {
    TINY_HARNESS_TABLE: 't',
    TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:turns',
  };

  it.each<[Record<string, string>, RegExp]>([
    [
      { TINY_HARNESS_MODEL_PROVIDER: 'scripted' },
      /TINY_HARNESS_MODEL_PROVIDER=scripted needs TINY_HARNESS_MODEL_SCRIPT/,
    ],
    [
      { TINY_HARNESS_MODEL_PROVIDER: 'openai' },
      /TINY_HARNESS_MODEL_PROVIDER=openai needs TINY_HARNESS_MODEL=<model id>/,
    ],
    [
      { TINY_HARNESS_MODEL_PROVIDER: 'openai', TINY_HARNESS_MODEL: 'gpt-5' },
      /needs an API key: set OPENAI_API_KEY, TINY_HARNESS_MODEL_API_KEY_SECRET \(a Secrets Manager secret holding the key\) or TINY_HARNESS_MODEL_BASE_URL/,
    ],
  ])('refuses %j in one line', (env, message) => {
    expect(() => readRuntimeConfig({ ...base, ...env })).toThrow(message);
    try {
      readRuntimeConfig({ ...base, ...env });
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('takes a key from the environment locally, or a keyless server behind a base URL', () => {
    expect(() =>
      readRuntimeConfig({
        ...base,
        TINY_HARNESS_MODEL_PROVIDER: 'openai',
        TINY_HARNESS_MODEL: 'gpt-5',
        OPENAI_API_KEY: 'sk-test',
      })
    ).not.toThrow();
    expect(() =>
      readRuntimeConfig({
        ...base,
        TINY_HARNESS_MODEL_PROVIDER: 'openai-chat',
        TINY_HARNESS_MODEL: 'llama',
        TINY_HARNESS_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1',
      })
    ).not.toThrow();
  });
});
