import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { registerRemoteAgents } from '../../../functions/handlers/register-remote-agents.js';
import { type CardServer, startCardServer } from '../../support/card-server.js';

describe('registering the remote agents at deployment', () => {
  let cards: CardServer;

  beforeAll(async () => {
    // The cards are served over http on loopback: an endpoint is called only at its card's origin.
    vi.stubEnv('TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS', 'true');
    cards = await startCardServer({
      '/ledger.json': () => cardToJson(buildAgentCard({ baseUrl: cards.url })),
      '/old.json': () => ({
        name: 'old',
        protocolVersion: '0.3.0',
        url: 'https://old.example.com',
      }),
    });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await cards?.close();
  });

  it('takes agents it can call and agents that do not answer yet', async () => {
    const directory = JSON.stringify({
      ledger: { card: `${cards.url}/ledger.json` },
      later: { card: 'http://127.0.0.1:9/card.json' },
    });
    const registrations = await registerRemoteAgents(directory);
    expect(registrations).toEqual([
      { agent: 'ledger', outcome: 'ready', binding: 'JSONRPC' },
      { agent: 'later', outcome: 'unreachable', reason: expect.stringContaining('did not answer') },
    ]);
  });

  it('fails the deployment, naming the agent, when a card offers nothing it can call', async () => {
    const directory = JSON.stringify({
      ledger: { card: `${cards.url}/ledger.json` },
      old: { card: `${cards.url}/old.json` },
    });
    await expect(registerRemoteAgents(directory)).rejects.toThrow(
      /^remote agent old is refused: its card offers A2A 0\.3\.0 over JSONRPC at https:\/\/old\.example\.com; tiny-harness calls A2A 1\.0/
    );
  });
});
