import { exponentialDelayMs } from '../exponential-delay.js';
import type { WebhookResult } from '../ports/webhook-sender.js';

/**
 * How hard one notification is tried before its stream record is handed back to the event source
 * (which retries the record later, then gives it to the on-failure queue).
 */
export interface RetryPolicy {
  /** POSTs of one notification within one invocation. */
  attempts: number;
  /** The wait after the first failed attempt; it doubles after each further one. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** One attempt's limit (A2A recommends 10 to 30 s). */
  attemptTimeoutMs: number;
  /** Less time than this left in the invocation: no attempt is started. */
  minAttemptMs: number;
}

/** Four attempts, 0.5 s, 1 s and 2 s apart: at most 43.5 s with every attempt timing out. */
export const PUSH_RETRY_POLICY: RetryPolicy = {
  attempts: 4,
  firstDelayMs: 500,
  maxDelayMs: 8_000,
  attemptTimeoutMs: 10_000,
  minAttemptMs: 1_000,
};

/**
 * What an attempt means: `delivered` (2xx); `rejected`, which no retry changes (a 4xx but 408
 * and 429, a redirect, which is never followed, a refused address); `retry` otherwise (5xx, 408
 * Request Timeout, 429 Too Many Requests, no answer at all).
 */
export type Verdict = 'delivered' | 'rejected' | 'retry';

export const verdictOf = (result: WebhookResult): Verdict => {
  if (result.kind === 'refused') return 'rejected';
  if (result.kind === 'failed') return 'retry';
  const { status } = result;
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'rejected';
};

/** The wait after failed attempt `attempt` (1-based): exponential, capped. */
export const backoffMs = (attempt: number, policy: RetryPolicy = PUSH_RETRY_POLICY): number =>
  exponentialDelayMs(attempt, policy.firstDelayMs, policy.maxDelayMs);

/** The limit of the next attempt, or `undefined` when too little time is left to start one. */
export const attemptTimeoutMs = (
  remainingMs: number,
  policy: RetryPolicy = PUSH_RETRY_POLICY
): number | undefined =>
  remainingMs < policy.minAttemptMs ? undefined : Math.min(policy.attemptTimeoutMs, remainingMs);

export type NextStep =
  | { action: 'done'; outcome: 'delivered' | 'rejected' }
  | { action: 'wait'; delayMs: number }
  | { action: 'give_up'; why: 'attempts' | 'time' };

/**
 * After attempt `attempt` (1-based) came to `result` with `remainingMs` of the invocation left:
 * stop, wait and try again, or give up (the record is then retried by the event source). A wait
 * is only worth it if an attempt can still start after it.
 */
export const nextStep = (
  attempt: number,
  result: WebhookResult,
  remainingMs: number,
  policy: RetryPolicy = PUSH_RETRY_POLICY
): NextStep => {
  const verdict = verdictOf(result);
  if (verdict !== 'retry') return { action: 'done', outcome: verdict };
  if (attempt >= policy.attempts) return { action: 'give_up', why: 'attempts' };
  const delayMs = backoffMs(attempt, policy);
  if (remainingMs - delayMs < policy.minAttemptMs) return { action: 'give_up', why: 'time' };
  return { action: 'wait', delayMs };
};
