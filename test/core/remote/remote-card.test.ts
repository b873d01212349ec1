import { describe, expect, it } from 'vitest';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { chooseInterface } from '../../../functions/core/remote/remote-card.js';

const ours = () => cardToJson(buildAgentCard({ baseUrl: 'https://ledger.example.com' }));

const withInterfaces = (interfaces: unknown[]) => ({ ...ours(), supportedInterfaces: interfaces });

describe('choosing how to call a remote agent from its card', () => {
  it("takes the card's first A2A 1.0 interface it can call, and reads push and the task extension", () => {
    expect(chooseInterface(ours())).toEqual({
      ok: true,
      card: {
        name: 'tiny-harness',
        url: 'https://ledger.example.com',
        binding: 'JSONRPC',
        version: '1.0',
        tenant: '',
        push: true,
        taskExtension: true,
      },
    });
  });

  it("follows the agent's order of preference, and takes a 1.0 patch release", () => {
    const choice = chooseInterface(
      withInterfaces([
        { url: 'https://a.example.com/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        {
          url: 'https://a.example.com/rest',
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0.1',
        },
        { url: 'https://a.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ])
    );
    expect(choice.ok && choice.card).toMatchObject({
      url: 'https://a.example.com/rest',
      binding: 'HTTP+JSON',
      version: '1.0.1',
    });
  });

  it('refuses an A2A 0.3 card, saying what it offers and what is needed', () => {
    const choice = chooseInterface({
      name: 'old',
      protocolVersion: '0.3.0',
      url: 'https://old.example.com/a2a',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://old.example.com/rest', transport: 'HTTP+JSON' }],
      capabilities: { pushNotifications: true },
    });
    expect(choice).toEqual({
      ok: false,
      reason:
        'its card offers A2A 0.3.0 over JSONRPC at https://old.example.com/a2a; A2A 0.3.0 over HTTP+JSON at https://old.example.com/rest; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON',
    });
  });

  it('refuses a card whose 1.0 interfaces are all of a binding it does not call, or at no http(s) URL', () => {
    const grpc = chooseInterface(
      withInterfaces([
        { url: 'https://a.example.com', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'ftp://a.example.com', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.example.com', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ])
    );
    expect(grpc.ok).toBe(false);
    expect(!grpc.ok && grpc.reason).toContain('A2A 1.0 over GRPC at https://a.example.com');
    expect(chooseInterface(withInterfaces([]))).toEqual({
      ok: false,
      reason: 'its card offers no interface; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON',
    });
    expect(chooseInterface('<html>')).toEqual({
      ok: false,
      reason: 'its card is not an A2A agent card (not a JSON object)',
    });
  });

  it('reads an agent without push notifications or the task extension as such', () => {
    const plain = {
      name: 'plain',
      supportedInterfaces: [
        { url: 'https://p.example.com', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { extensions: [{ uri: 'https://example.com/other' }] },
    };
    expect(chooseInterface(plain)).toMatchObject({
      ok: true,
      card: { push: false, taskExtension: false },
    });
  });
});
