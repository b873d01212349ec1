import { describe, expect, it } from 'vitest';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { endpointRefusal } from '../../../functions/core/remote/endpoint-pin.js';
import { chooseInterface } from '../../../functions/core/remote/remote-card.js';

const ours = () => cardToJson(buildAgentCard({ baseUrl: 'https://ledger.example.com' }));

const withInterfaces = (interfaces: unknown[]) => ({ ...ours(), supportedInterfaces: interfaces });

/** Where a card is read from, and whether http to loopback is allowed (a deployment: never). */
const at = (origin: string, allowLoopback = false) => ({
  cardUrl: `${origin}/.well-known/agent-card.json`,
  allowLoopback,
});

const jsonRpc = (url: string) => ({ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });

describe('choosing how to call a remote agent from its card', () => {
  it("takes the card's first A2A 1.0 interface it can call, and reads push and the task extension", () => {
    expect(chooseInterface(ours(), at('https://ledger.example.com'))).toEqual({
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
      ]),
      at('https://a.example.com')
    );
    expect(choice.ok && choice.card).toMatchObject({
      url: 'https://a.example.com/rest',
      binding: 'HTTP+JSON',
      version: '1.0.1',
    });
  });

  it('refuses an A2A 0.3 card, saying what it offers and what is needed', () => {
    const choice = chooseInterface(
      {
        name: 'old',
        protocolVersion: '0.3.0',
        url: 'https://old.example.com/a2a',
        preferredTransport: 'JSONRPC',
        additionalInterfaces: [{ url: 'https://old.example.com/rest', transport: 'HTTP+JSON' }],
        capabilities: { pushNotifications: true },
      },
      at('https://old.example.com')
    );
    expect(choice).toEqual({
      ok: false,
      reason:
        'its card offers A2A 0.3.0 over JSONRPC at https://old.example.com/a2a; A2A 0.3.0 over HTTP+JSON at https://old.example.com/rest; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON',
    });
  });

  it('refuses a card whose 1.0 interfaces are all of a binding it does not call, or at no http(s) URL', () => {
    const pin = at('https://a.example.com');
    const grpc = chooseInterface(
      withInterfaces([
        { url: 'https://a.example.com', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'ftp://a.example.com', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.example.com', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ]),
      pin
    );
    expect(grpc.ok).toBe(false);
    expect(!grpc.ok && grpc.reason).toContain('A2A 1.0 over GRPC at https://a.example.com');
    expect(chooseInterface(withInterfaces([]), pin)).toEqual({
      ok: false,
      reason: 'its card offers no interface; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON',
    });
    expect(chooseInterface('<html>', pin)).toEqual({
      ok: false,
      reason: 'its card is not an A2A agent card (not a JSON object)',
    });
  });

  it('reads an agent without push notifications or the task extension as such', () => {
    const plain = {
      name: 'plain',
      supportedInterfaces: [jsonRpc('https://p.example.com')],
      capabilities: { extensions: [{ uri: 'https://example.com/other' }] },
    };
    expect(chooseInterface(plain, at('https://p.example.com'))).toMatchObject({
      ok: true,
      card: { push: false, taskExtension: false },
    });
  });
});

describe("a card's endpoint is pinned to the card's origin and to https", () => {
  it('refuses an interface at another origin, saying which origin it must be', () => {
    const choice = chooseInterface(
      withInterfaces([jsonRpc('https://169.254.169.254/latest')]),
      at('https://ledger.example.com')
    );
    expect(choice).toEqual({
      ok: false,
      reason:
        "its card offers A2A 1.0 over JSONRPC at https://169.254.169.254/latest (refused: not at the card's origin (https://ledger.example.com)); tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON",
    });
  });

  it('takes the first interface at its origin when an earlier one points elsewhere', () => {
    const choice = chooseInterface(
      withInterfaces([
        jsonRpc('https://elsewhere.example.com/rpc'),
        {
          url: 'https://ledger.example.com/v1',
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0',
        },
      ]),
      at('https://ledger.example.com')
    );
    expect(choice.ok && choice.card).toMatchObject({
      url: 'https://ledger.example.com/v1',
      binding: 'HTTP+JSON',
    });
  });

  it('refuses http beside an https card (another origin), and http at an http card off loopback', () => {
    expect(endpointRefusal('http://ledger.example.com', at('https://ledger.example.com'))).toBe(
      "not at the card's origin (https://ledger.example.com)"
    );
    expect(
      endpointRefusal('http://ledger.example.com/a2a', at('http://ledger.example.com', true))
    ).toBe('plain http (https only)');
    expect(endpointRefusal('http://10.0.0.7:8080', at('http://10.0.0.7:8080', true))).toBe(
      'plain http (https only)'
    );
  });

  it("takes http to loopback at the card's own origin only where loopback is allowed", () => {
    const local = 'http://127.0.0.1:8081';
    expect(chooseInterface(withInterfaces([jsonRpc(local)]), at(local, true))).toMatchObject({
      ok: true,
      card: { url: local },
    });
    expect(endpointRefusal(`${local}/`, at(local, false))).toBe(
      'plain http to loopback, which only TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS=true allows'
    );
    for (const origin of ['http://localhost:8081', 'http://[::1]:8081']) {
      expect(endpointRefusal(`${origin}/a2a`, at(origin, true)), origin).toBeUndefined();
    }
    // Another port on the same host is another origin, loopback or not.
    expect(endpointRefusal('http://127.0.0.1:9999', at(local, true))).toBe(
      "not at the card's origin (http://127.0.0.1:8081)"
    );
  });

  it('compares origins as a URL parser normalizes them, not as spelled', () => {
    const pin = at('https://Ledger.Example.com:443');
    expect(endpointRefusal('https://ledger.example.com/rpc', pin)).toBeUndefined();
    expect(endpointRefusal('HTTPS://LEDGER.EXAMPLE.COM:443/rpc', pin)).toBeUndefined();
    // The host is what follows the userinfo: a card cannot hide another host behind an @.
    expect(endpointRefusal('https://ledger.example.com@evil.example.com/', pin)).toBe(
      "not at the card's origin (https://ledger.example.com)"
    );
    expect(endpointRefusal('https://ledger.example.com.evil.example.com/', pin)).toBe(
      "not at the card's origin (https://ledger.example.com)"
    );
    expect(endpointRefusal('https://ledger.example.com:8443/', pin)).toBe(
      "not at the card's origin (https://ledger.example.com)"
    );
    expect(endpointRefusal('not a url', pin)).toBe('not an http(s) URL');
  });
});
