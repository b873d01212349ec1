/**
 * The A2A endpoint of `npm start` (functions/local/http-shim.ts) answers only to its loopback
 * Host: a DNS-rebinding page, whose requests name its own host, reaches no handler.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpShim } from '../../functions/local/http-shim.js';
import { isLoopbackHost } from '../../functions/local/loopback-host.js';
import { rawRequest } from './raw-http.js';

const shims: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const shim of shims.splice(0)) await shim.close();
});

const start = async (allowedHosts?: string[]) => {
  const events: APIGatewayProxyEvent[] = [];
  const shim = await startHttpShim({
    port: 0,
    handler: async (event) => {
      events.push(event);
      return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };
    },
    throttle: false,
    allowedHosts,
  });
  shims.push(shim);
  return { events, port: Number(new URL(shim.url).port) };
};

const cancel = (port: number, host: string) =>
  rawRequest(port, {
    path: '/',
    method: 'POST',
    headers: { Host: host, 'Content-Type': 'application/json', Authorization: 'Bearer t' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: 't-1' } }),
  });

describe('the local A2A endpoint checks the Host', () => {
  it('refuses a foreign Host with 421 before any handler runs', async () => {
    const { events, port } = await start();
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      'localhost',
    ]) {
      const refused = await cancel(port, host);
      expect(refused.status, host).toBe(421);
      expect(refused.body).toContain('misdirected request');
    }
    expect(events).toHaveLength(0);
  });

  it('serves its loopback address by any of its names, at its port', async () => {
    const { events, port } = await start();
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
    ]) {
      expect((await cancel(port, host)).status, host).toBe(200);
    }
    expect(events).toHaveLength(4);
  });

  it('serves the host of its public base URL too, when one is configured', async () => {
    const { events, port } = await start(['tunnel.example.net']);
    expect((await cancel(port, 'tunnel.example.net')).status).toBe(200);
    expect((await cancel(port, 'other.example.net')).status).toBe(421);
    expect(events).toHaveLength(1);
  });
});

describe('isLoopbackHost', () => {
  it('takes the loopback names with the exact port, nothing else', () => {
    expect(isLoopbackHost('127.0.0.1:8080', 8080)).toBe(true);
    expect(isLoopbackHost('[::1]:8080', 8080)).toBe(true);
    expect(isLoopbackHost('localhost:8080', 8081)).toBe(false);
    expect(isLoopbackHost('localhost.:8080', 8080)).toBe(false);
    expect(isLoopbackHost('127.0.0.2:8080', 8080)).toBe(false);
    expect(isLoopbackHost(undefined, 8080)).toBe(false);
  });
});
