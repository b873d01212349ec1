/**
 * Secrets read from Secrets Manager after start (a model's key, a remote agent's token) join the
 * secrets the logs and intake mask as soon as they are read, in the very list the logger and the
 * service were built with.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LazyModel } from '../../../functions/adapters/model/lazy-model.js';
import { loggerOf } from '../../../functions/composition/logger.js';
import { buildModel } from '../../../functions/composition/model.js';
import { buildRemoteAgents } from '../../../functions/composition/remote-agents.js';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';
import { rememberSecret } from '../../../functions/composition/secret-list.js';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { REDACTED, redactSecrets } from '../../../functions/core/intake/redact.js';

const REMOTE_TOKEN = 'ledger-token-from-secrets-manager-42';
const MODEL_KEY = 'model-key-from-secrets-manager-42';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ledger-token-AbCdEf';

vi.mock('../../../functions/adapters/aws/secret-string.js', () => ({
  readSecretString: vi.fn(async () => REMOTE_TOKEN),
}));
vi.mock('../../../functions/adapters/model/secret-key.js', () => ({
  readApiKeySecret: vi.fn(async () => MODEL_KEY),
}));

const BASE = {
  TINY_HARNESS_TABLE: 't',
  TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
};

/** An agent on loopback whose card is ours and which answers every call with a task. */
const agent = async () => {
  const authorizations: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (request.url === '/.well-known/agent-card.json') {
        response.end(JSON.stringify(cardToJson(buildAgentCard({ baseUrl: url }))));
        return;
      }
      authorizations.push(String(request.headers.authorization));
      const { id } = JSON.parse(body) as { id: unknown };
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { id: 'r-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
        })
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url, authorizations };
};

describe('secrets read from Secrets Manager are masked from the moment they are read', () => {
  it("a remote agent's token: masked by the logger built before it was read", async () => {
    const ledger = await agent();
    const config = readRuntimeConfig({
      ...BASE,
      TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
      TINY_HARNESS_REMOTE_AGENTS: JSON.stringify({
        ledger: {
          card: `${ledger.url}/.well-known/agent-card.json`,
          auth: { type: 'bearer', token: { secretArn: SECRET_ARN } },
        },
      }),
    });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((line) => {
      lines.push(String(line));
      return true;
    });
    try {
      const logger = loggerOf(config);
      const secrets = configuredSecrets(config);
      expect(secrets).not.toContain(REMOTE_TOKEN);

      await buildRemoteAgents(config).getTask('ledger', 'r-1');
      expect(ledger.authorizations).toEqual([`Bearer ${REMOTE_TOKEN}`]);

      // The list the logger and the service hold is the one that grew.
      expect(configuredSecrets(config)).toBe(secrets);
      expect(secrets).toContain(REMOTE_TOKEN);
      logger.warn('the agent echoed', { text: `it said ${REMOTE_TOKEN} back` });
    } finally {
      write.mockRestore();
    }
    expect(lines.join('')).toContain(`it said ${REDACTED} back`);
    expect(lines.join('')).not.toContain(REMOTE_TOKEN);
  });

  it("a model's key: masked once the model is built with it", async () => {
    const config = readRuntimeConfig({
      ...BASE,
      TINY_HARNESS_MODEL_PROVIDER: 'openai',
      TINY_HARNESS_MODEL: 'gpt-test',
      TINY_HARNESS_MODEL_API_KEY_SECRET: 'tiny-harness/openai',
    });
    const secrets = configuredSecrets(config);
    expect(secrets).not.toContain(MODEL_KEY);
    const model = buildModel(config);
    expect(model).toBeInstanceOf(LazyModel);
    await (model as LazyModel).model();
    expect(secrets).toContain(MODEL_KEY);
    expect(redactSecrets(`401: bad key ${MODEL_KEY}`, secrets)).toBe(`401: bad key ${REDACTED}`);
  });

  it('remembers a secret once, per configuration', () => {
    const config = readRuntimeConfig(BASE);
    const other = readRuntimeConfig(BASE);
    rememberSecret(config, 'remembered-secret-1');
    rememberSecret(config, 'remembered-secret-1');
    expect(configuredSecrets(config).filter((s) => s === 'remembered-secret-1')).toHaveLength(1);
    expect(configuredSecrets(other)).not.toContain('remembered-secret-1');
    // Read before anyone asked for the list: the configured ones join it all the same.
    const early = readRuntimeConfig({
      ...BASE,
      TINY_HARNESS_BEARER_TOKENS: 'configured-token-1=alice',
    });
    rememberSecret(early, 'remembered-secret-2');
    expect(configuredSecrets(early)).toEqual(['configured-token-1', 'remembered-secret-2']);
  });
});
