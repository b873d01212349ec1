import { describe, expect, it } from 'vitest';
import type { WebhookResult } from '../../../functions/core/ports/webhook-sender.js';
import {
  attemptTimeoutMs,
  backoffMs,
  nextStep,
  PUSH_RETRY_POLICY,
  verdictOf,
} from '../../../functions/core/push/retry.js';

const status = (code: number): WebhookResult => ({ kind: 'status', status: code });
const PLENTY = 10 * 60_000;

describe('push delivery retries', () => {
  it.each([200, 201, 202, 204, 299])('counts %i as delivered', (code) => {
    expect(verdictOf(status(code))).toBe('delivered');
  });

  it.each([500, 502, 503, 504, 408, 429])('retries %i', (code) => {
    expect(verdictOf(status(code))).toBe('retry');
  });

  it.each([400, 401, 403, 404, 410, 413, 301, 302, 307, 308])(
    'takes %i as the webhook’s final answer (a redirect is never followed)',
    (code) => {
      expect(verdictOf(status(code))).toBe('rejected');
    }
  );

  it('retries no answer at all (network, timeout) and never a refused address', () => {
    expect(verdictOf({ kind: 'failed', reason: 'ECONNREFUSED' })).toBe('retry');
    expect(verdictOf({ kind: 'failed', reason: 'no answer within 10000 ms' })).toBe('retry');
    expect(verdictOf({ kind: 'refused', reason: 'private address' })).toBe('rejected');
  });

  it('backs off exponentially: 0.5 s, 1 s, 2 s between four attempts, capped', () => {
    expect(PUSH_RETRY_POLICY.attempts).toBe(4);
    expect([1, 2, 3].map((attempt) => backoffMs(attempt))).toEqual([500, 1_000, 2_000]);
    expect(backoffMs(10)).toBe(PUSH_RETRY_POLICY.maxDelayMs);
  });

  it('plays the whole schedule: three waits, then gives up after the fourth attempt', () => {
    const steps = [1, 2, 3, 4].map((attempt) => nextStep(attempt, status(503), PLENTY));
    expect(steps).toEqual([
      { action: 'wait', delayMs: 500 },
      { action: 'wait', delayMs: 1_000 },
      { action: 'wait', delayMs: 2_000 },
      { action: 'give_up', why: 'attempts' },
    ]);
  });

  it('stops at a delivery or a final answer, whatever the attempt', () => {
    expect(nextStep(3, status(200), PLENTY)).toEqual({ action: 'done', outcome: 'delivered' });
    expect(nextStep(1, status(404), PLENTY)).toEqual({ action: 'done', outcome: 'rejected' });
  });

  it('gives up when the invocation has no time for a wait and one more attempt', () => {
    expect(nextStep(1, status(500), 1_400)).toEqual({ action: 'give_up', why: 'time' });
    expect(nextStep(1, status(500), 1_500)).toEqual({ action: 'wait', delayMs: 500 });
  });

  it('limits an attempt to 10 s, or to the time left, and starts none with under 1 s left', () => {
    expect(attemptTimeoutMs(PLENTY)).toBe(10_000);
    expect(attemptTimeoutMs(4_000)).toBe(4_000);
    expect(attemptTimeoutMs(999)).toBeUndefined();
  });
});
