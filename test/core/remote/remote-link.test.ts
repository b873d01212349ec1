import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  callFailed,
  cancelPending,
  childIdOf,
  creatingLink,
  type FollowPolicy,
  failed,
  nextWaitSeconds,
  observed,
  REMOTE_SUMMARY_LIMIT,
  type RemoteLink,
  undeliveredChange,
  withCancelAttempt,
  withCancelRequested,
  withDelivered,
} from '../../../functions/core/remote/remote-link.js';
import type { RemoteSnapshot } from '../../../functions/core/remote/remote-snapshot.js';

const NOW = '2026-01-01T00:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();
const POLICY: FollowPolicy = { pollSeconds: 2, maxPollSeconds: 60, unreachableSeconds: 600 };

const creating = (delivery: RemoteLink['delivery'] = 'poll'): RemoteLink =>
  creatingLink({
    parentId: 'parent-1',
    linkId: '0123456789abcdef0123456789abcdef',
    agent: 'ledger',
    messageId: 'parent-1:1:1:call-1',
    delivery,
    tokenHash: delivery === 'push' ? 'ab'.repeat(32) : null,
    now: NOW,
  });

const snapshot = (overrides: Partial<RemoteSnapshot> = {}): RemoteSnapshot => ({
  state: 'TASK_STATE_WORKING',
  subState: null,
  turn: null,
  result: '',
  usage: null,
  ...overrides,
});

const following = () => observed(creating(), snapshot({ state: 'TASK_STATE_SUBMITTED' }), 'r-1');

describe("a remote child's link", () => {
  it('names the child by the remote task id once there is one, by the link before', () => {
    expect(childIdOf(creating())).toBe('ledger:0123456789abcdef0123456789abcdef');
    expect(childIdOf(following())).toBe('r-1');
    expect(following()).toMatchObject({ phase: 'following', remoteTaskId: 'r-1', seq: 0 });
  });

  it('counts a change of state, and delivers it as the parent reads a child change', () => {
    const working = observed(following(), snapshot(), null);
    expect(working).toMatchObject({ state: 'TASK_STATE_WORKING', seq: 1, delivered: 0 });
    expect(undeliveredChange(working)).toEqual({
      parentId: 'parent-1',
      childId: 'r-1',
      agent: { kind: 'agent', id: 'ledger', version: null },
      state: TaskState.TASK_STATE_WORKING,
      subState: undefined,
      childLifecycle: 'delegated',
      participantTask: false,
      remoteTurn: false,
      linkedByHarness: true,
      summary: '',
      reportedUsage: null,
      usage: null,
      changeKey: 'remote:1',
      order: 1,
    });
    expect(undeliveredChange(withDelivered(working, 1))).toBeUndefined();
  });

  it('takes the same state again as a quiet poll, and a progress message while working as no turn', () => {
    const working = observed(following(), snapshot(), null);
    const quiet = observed(working, snapshot(), null);
    expect(quiet).toMatchObject({ seq: 1, quietPolls: 1 });
    const progress = observed(
      quiet,
      snapshot({ turn: { id: 'm-1', text: 'halfway' }, result: 'halfway' }),
      null
    );
    expect(progress).toMatchObject({ seq: 1, quietPolls: 2, lastTurnId: 'm-1', turn: false });
  });

  it('counts a stop with a new agent message as a remote turn, and the same message again as none', () => {
    const asked = observed(
      following(),
      snapshot({
        state: 'TASK_STATE_INPUT_REQUIRED',
        subState: 'awaiting-next-message',
        turn: { id: 'm-2', text: 'Here is a draft.' },
        result: 'Here is a draft.',
      }),
      null
    );
    expect(asked).toMatchObject({ seq: 1, turn: true, summary: 'Here is a draft.' });
    expect(undeliveredChange(asked)?.remoteTurn).toBe(true);
    const again = observed(
      asked,
      snapshot({
        state: 'TASK_STATE_INPUT_REQUIRED',
        subState: 'awaiting-next-message',
        turn: { id: 'm-2', text: 'Here is a draft.' },
      }),
      null
    );
    expect(again.seq).toBe(1);
  });

  it('ends with the ending, cuts a long answer to its bound, and takes nothing after the end', () => {
    const long = 'x'.repeat(REMOTE_SUMMARY_LIMIT + 10);
    const done = observed(
      following(),
      snapshot({ state: 'TASK_STATE_COMPLETED', result: long, turn: { id: 'm', text: long } }),
      null
    );
    expect(done).toMatchObject({ phase: 'ended', turn: false, seq: 1 });
    expect(done.summary).toHaveLength(
      REMOTE_SUMMARY_LIMIT + `\n[… cut: the agent's answer had ${long.length} characters]`.length
    );
    expect(observed(done, snapshot({ state: 'TASK_STATE_FAILED' }), null)).toBe(done);
    expect(failed(done, 'late')).toBe(done);
  });

  it('keeps what the agent reports of its usage, and the last report when a read has none', () => {
    const usage = {
      usage: {
        model_calls: 3,
        input_tokens: 300,
        cached_input_tokens: 0,
        output_tokens: 30,
        cost_usd: 0.01,
      },
      unknown: [],
    };
    const reported = observed(following(), snapshot({ usage }), null);
    expect(reported.usage).toEqual(usage);
    expect(observed(reported, snapshot({ usage: null }), null).usage).toEqual(usage);
  });

  it('fails the child once the agent has gone unanswered past its allowance, with the last error', () => {
    const first = callFailed(following(), 'GetTask on ledger: ECONNREFUSED', NOW, POLICY);
    expect(first).toMatchObject({ failures: 1, failingSince: NOW, phase: 'following' });
    const still = callFailed(first, 'GetTask on ledger: ECONNREFUSED', later(599), POLICY);
    expect(still).toMatchObject({ failures: 2, phase: 'following' });
    const gone = callFailed(still, 'GetTask on ledger: ECONNREFUSED', later(600), POLICY);
    expect(gone).toMatchObject({ phase: 'ended', state: 'TASK_STATE_FAILED', seq: 1 });
    expect(gone.summary).toBe(
      'agent ledger has not answered for 600 s (the limit is 600 s): GetTask on ledger: ECONNREFUSED'
    );
    // An answer in between starts the allowance again.
    const answered = observed(still, snapshot(), null);
    expect(answered).toMatchObject({ failures: 0, failingSince: null, lastError: null });
  });

  it('waits longer after each quiet poll or failure, up to the longest wait; a pushed child only for the safety poll', () => {
    let link = observed(following(), snapshot(), null);
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      waits.push(nextWaitSeconds(link, POLICY));
      link = observed(link, snapshot(), null);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60]);
    const failing = callFailed(callFailed(link, 'down', NOW, POLICY), 'down', NOW, POLICY);
    expect(nextWaitSeconds(failing, POLICY)).toBe(4);
    const pushed = observed(creating('push'), snapshot(), 'r-2');
    expect(nextWaitSeconds(pushed, POLICY)).toBe(60);
    expect(nextWaitSeconds(failed(pushed, 'gone'), POLICY)).toBe(0);
  });

  it('records a cancel until the agent took it; a child that ended or has no remote task needs none', () => {
    const requested = withCancelRequested(following(), NOW);
    expect(cancelPending(requested)).toBe(true);
    const refused = withCancelAttempt(requested, 'CancelTask on ledger: ECONNREFUSED');
    expect(refused.cancel).toEqual({
      requestedAt: NOW,
      attempts: 1,
      lastError: 'CancelTask on ledger: ECONNREFUSED',
      done: false,
    });
    const sent = withCancelAttempt(refused, null);
    expect(sent.cancel).toMatchObject({ attempts: 2, lastError: null, done: true });
    expect(cancelPending(sent)).toBe(false);
    expect(cancelPending(withCancelRequested(creating(), NOW))).toBe(false);
    expect(cancelPending(withCancelRequested(failed(following(), 'x'), NOW))).toBe(false);
  });
});
