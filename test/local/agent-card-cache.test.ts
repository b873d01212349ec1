/**
 * The agent card over HTTP, as a client's cache meets it on `npm start`'s endpoint: a validator
 * for each of its conditional requests (ETag, Last-Modified), 304 when the card is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { startStack } from '../support/local-stack.js';

describe('the agent card, cached', () => {
  let stack: LocalStack;
  let startedAt = 0;
  const card = (headers: Record<string, string> = {}) =>
    fetch(`${stack.url}/.well-known/agent-card.json`, { headers });

  beforeAll(async () => {
    startedAt = Date.now();
    stack = await startStack({ model: new ScriptedModel() });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('says when it was built (Last-Modified), and answers 304 to If-Modified-Since from then on', async () => {
    const first = await card();
    expect(first.status).toBe(200);
    const lastModified = first.headers.get('last-modified') as string;
    // An HTTP-date: when this stack started serving it, to the second.
    expect(lastModified).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    const at = Date.parse(lastModified);
    expect(at).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
    // The same card later: the same date, the same entity tag.
    const again = await card();
    expect(again.headers.get('last-modified')).toBe(lastModified);

    const unchanged = await card({ 'If-Modified-Since': lastModified });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('last-modified')).toBe(lastModified);
    expect(unchanged.headers.get('etag')).toBe(first.headers.get('etag'));

    // A copy from before the card was built, or a date that is not one: the card again.
    const older = new Date(at - 60_000).toUTCString();
    expect((await card({ 'If-Modified-Since': older })).status).toBe(200);
    expect((await card({ 'If-Modified-Since': 'yesterday' })).status).toBe(200);
    // A date in the future is no date (RFC 9110 §13.1.3).
    const future = new Date(Date.now() + 86_400_000).toUTCString();
    expect((await card({ 'If-Modified-Since': future })).status).toBe(200);
    // Beside If-None-Match, the entity tag alone decides.
    const mismatched = await card({
      'If-Modified-Since': lastModified,
      'If-None-Match': '"an-older-card"',
    });
    expect(mismatched.status).toBe(200);
  });
});
