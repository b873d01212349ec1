import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { A2aRemoteAgents } from '../../../functions/adapters/remote/a2a-remote-agents.js';
import {
  bearerCredentials,
  type Credentials,
  oauth2Credentials,
} from '../../../functions/adapters/remote/credentials.js';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { RemoteCallError } from '../../../functions/core/errors.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = (seen: Seen, response: ServerResponse) => void;

/** A loopback HTTP server answering each request as the test says, remembering each. */
const serve = async (answer: Answer) => {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      };
      seen.push(entry);
      answer(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { url, seen };
};

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
};

/** An agent whose card is ours (JSON-RPC at its root) and whose JSON-RPC answers are `rpc`'s. */
const agentAnswering = (
  rpc: (request: { id: unknown; method: string }, seen: Seen, response: ServerResponse) => void
) => {
  let base = '';
  const server = serve((seen, response) => {
    if (seen.path === '/.well-known/agent-card.json') {
      json(response, 200, cardToJson(buildAgentCard({ baseUrl: base })));
      return;
    }
    rpc(JSON.parse(seen.body) as { id: unknown; method: string }, seen, response);
  });
  return server.then((started) => {
    base = started.url;
    return started;
  });
};

/**
 * The agents below listen on loopback over http: called as `npm start` with loopback allowed
 * calls them, unless `allowLoopback` says otherwise.
 */
const agentsAt = (url: string, credentials: Credentials, timeoutMs = 2_000, allowLoopback = true) =>
  new A2aRemoteAgents({
    endpoints: { allowLoopback },
    agents: [
      {
        id: 'ledger',
        description: '',
        push: true,
        policy: { pollSeconds: 1, maxPollSeconds: 1, unreachableSeconds: 1 },
        cardUrl: `${url}/.well-known/agent-card.json`,
        credentials,
      },
    ],
    timeoutMs,
  });

const failureOf = async (call: Promise<unknown>): Promise<RemoteCallError> => {
  try {
    await call;
  } catch (error) {
    if (error instanceof RemoteCallError) return error;
    throw error;
  }
  throw new Error('the call did not fail');
};

const secret = (value: string) => async () => value;

describe('calling a remote agent', () => {
  it('sends its bearer token and the A2A version, and reads the answer as a Task', async () => {
    const agent = await agentAnswering((request, _seen, response) =>
      json(response, 200, {
        jsonrpc: '2.0',
        id: request.id,
        result: { id: 'r-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
      })
    );
    const task = await agentsAt(agent.url, bearerCredentials(secret('s3cret'))).getTask(
      'ledger',
      'r-1'
    );
    expect(task.id).toBe('r-1');
    const call = agent.seen.find((seen) => seen.method === 'POST');
    expect(call?.headers.authorization).toBe('Bearer s3cret');
    expect(call?.headers['a2a-version']).toBe('1.0');
    expect(JSON.parse(call?.body ?? '{}')).toMatchObject({
      method: 'GetTask',
      params: { id: 'r-1' },
    });
  });

  it('sorts failures: an A2A error answered, an agent unavailable (5xx, 429) or down, garbage', async () => {
    const notFound = await agentAnswering((request, _seen, response) =>
      json(response, 200, {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32001, message: 'Task not found' },
      })
    );
    const answered = await failureOf(
      agentsAt(notFound.url, bearerCredentials(secret('t'))).getTask('ledger', 'x')
    );
    expect(answered).toMatchObject({ kind: 'answered', a2aError: 'TaskNotFoundError' });

    for (const status of [503, 429]) {
      const busy = await agentAnswering((_request, _seen, response) => json(response, status, {}));
      const failure = await failureOf(
        agentsAt(busy.url, bearerCredentials(secret('t'))).getTask('ledger', 'x')
      );
      expect(failure).toMatchObject({ kind: 'unreachable' });
      expect(failure.message).toBe(`GetTask on ledger: it answered HTTP ${status}`);
    }

    const garbage = await agentAnswering((_request, _seen, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('<html>surprise</html>');
    });
    expect(
      await failureOf(agentsAt(garbage.url, bearerCredentials(secret('t'))).getTask('ledger', 'x'))
    ).toMatchObject({ kind: 'garbage' });
  });

  it('gives up on an agent that does not answer in time', async () => {
    const silent = await agentAnswering(() => undefined);
    const failure = await failureOf(
      agentsAt(silent.url, bearerCredentials(secret('t')), 300).getTask('ledger', 'x')
    );
    expect(failure).toMatchObject({ kind: 'unreachable' });
    expect(failure.message).toBe('GetTask on ledger: no answer in time');
  });

  it('asks for a fresh token once on a 401 (OAuth 2.0 client credentials), with Basic auth at the token endpoint', async () => {
    let issued = 0;
    const tokens = await serve((_seen, response) => {
      issued += 1;
      json(response, 200, {
        access_token: `token-${issued}`,
        token_type: 'Bearer',
        expires_in: 3600,
      });
    });
    const agent = await agentAnswering((request, seen, response) => {
      if (seen.headers.authorization !== 'Bearer token-2') {
        json(response, 401, {});
        return;
      }
      json(response, 200, {
        jsonrpc: '2.0',
        id: request.id,
        result: { id: 'r-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
      });
    });
    const credentials = oauth2Credentials({
      tokenUrl: `${tokens.url}/oauth2/token`,
      clientId: 'alpha',
      clientSecret: secret('client-secret'),
      scope: 'a2a',
      fetch,
      timeoutMs: 2_000,
    });
    const agents = agentsAt(agent.url, credentials);
    expect((await agents.getTask('ledger', 'r-1')).id).toBe('r-1');
    expect(tokens.seen.map((seen) => seen.body)).toEqual([
      'grant_type=client_credentials&scope=a2a',
      'grant_type=client_credentials&scope=a2a',
    ]);
    expect(tokens.seen[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('alpha:client-secret').toString('base64')}`
    );
    // The token is kept until it is about to expire: no third one.
    await agents.getTask('ledger', 'r-1');
    expect(issued).toBe(2);
  });

  it('refuses an agent whose card it cannot call, by name, and registers the rest', async () => {
    const old = await serve((_seen, response) =>
      json(response, 200, {
        name: 'old',
        protocolVersion: '0.3.0',
        url: 'http://x',
        preferredTransport: 'JSONRPC',
      })
    );
    const agents = agentsAt(old.url, bearerCredentials(secret('t')));
    expect(await agents.register()).toEqual([
      {
        agent: 'ledger',
        outcome: 'refused',
        reason:
          'remote agent ledger is refused: its card offers A2A 0.3.0 over JSONRPC at http://x; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON',
      },
    ]);
    const down = agentsAt('http://127.0.0.1:9', bearerCredentials(secret('t')));
    const [registration] = await down.register();
    expect(registration?.outcome).toBe('unreachable');
  });

  it("never sends the credentials to an endpoint off the card's origin", async () => {
    const elsewhere = await serve((_seen, response) => json(response, 200, {}));
    const card = await serve((_seen, response) =>
      json(response, 200, cardToJson(buildAgentCard({ baseUrl: elsewhere.url })))
    );
    const agents = agentsAt(card.url, bearerCredentials(secret('s3cret')));
    const [registration] = await agents.register();
    expect(registration).toMatchObject({ outcome: 'refused' });
    expect(registration?.outcome === 'refused' && registration.reason).toContain(
      `(refused: not at the card's origin (${card.url}))`
    );
    await expect(agents.getTask('ledger', 'r-1')).rejects.toThrow("not at the card's origin");
    expect(elsewhere.seen).toEqual([]);
  });

  it('refuses http to loopback unless loopback is allowed', async () => {
    const agent = await agentAnswering((_request, _seen, response) => json(response, 200, {}));
    const strict = agentsAt(agent.url, bearerCredentials(secret('s3cret')), 2_000, false);
    const [registration] = await strict.register();
    expect(registration?.outcome === 'refused' && registration.reason).toContain(
      'plain http to loopback, which only TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS=true allows'
    );
    expect(agent.seen.filter((seen) => seen.method === 'POST')).toEqual([]);
  });
});
