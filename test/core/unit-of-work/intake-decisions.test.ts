import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { decideChildChange } from '../../../functions/core/intake/child-changed.js';
import { decideCancel, decideCompletionRequest } from '../../../functions/core/intake/control.js';
import {
  decideReceipt,
  parseMessage,
  type ReceiveWants,
} from '../../../functions/core/intake/receive-message.js';
import { decideRevival } from '../../../functions/core/intake/revive.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import type { Facts, Wants } from '../../../functions/core/unit-of-work/operation.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';
import { summary } from './outcome-summary.js';
import { NOW, plainRecord, TASK_ID } from './plain-records.js';

const facts = <W extends Wants>(
  record: TaskRecord,
  observed: Facts<W, never>['observed'] = {},
  refusedForIds = 0,
  conflicts = refusedForIds
): Facts<W, never> => ({
  record,
  observed,
  reached: undefined,
  conflicts,
  refusedForIds,
  now: NOW,
});

const receipt = (text: string, sender = 'alice') => {
  const message = { ...textMessage(text), taskId: TASK_ID };
  const input = { taskId: TASK_ID, message, sender };
  return decideReceipt(input, parseMessage(message), 'tiny-harness');
};

const parked = plainRecord({
  state: TaskState.TASK_STATE_INPUT_REQUIRED,
  loop: { parkToken: 'token-1' },
});

describe('intake decides from the task and what it read beside it', () => {
  const rows: [string, ReturnType<typeof receipt>, Facts<ReceiveWants, never>, unknown][] = [
    [
      'takes a message for the model in, assuming it new, and claims the parked token',
      receipt('hello'),
      facts(parked),
      {
        answer: {
          kind: 'receipt',
          receipt: expect.objectContaining({
            accepted: true,
            duplicate: false,
            seq: 0,
            wake: { action: 'resume', token: 'token-1', taskId: TASK_ID, generation: 1 },
          }),
        },
        commit: 'update',
      },
    ],
    [
      'asks where the id was taken in once a commit was refused, maybe for the id',
      receipt('hello'),
      facts(parked, {}, 1),
      { needs: ['seenAt:read_message_seq'] },
    ],
    [
      'still assumes it new after a refusal the store said was the task’s alone',
      receipt('hello'),
      facts(parked, {}, 0, 1),
      {
        answer: {
          kind: 'receipt',
          receipt: expect.objectContaining({ accepted: true, duplicate: false, seq: 0 }),
        },
        commit: 'update',
      },
    ],
    [
      'answers a duplicate without writing',
      receipt('hello'),
      facts(parked, { seenAt: 4 }, 1),
      {
        answer: {
          kind: 'receipt',
          receipt: {
            accepted: true,
            duplicate: true,
            seq: 4,
            wake: { action: 'none' },
            record: parked,
          },
        },
        commit: null,
      },
    ],
    [
      'audits a stranger and changes nothing else',
      receipt('hello', 'mallory'),
      facts(parked),
      {
        answer: expect.objectContaining({
          receipt: { accepted: false, reason: 'not a participant' },
        }),
        commit: 'guarded',
      },
    ],
    [
      'asks for the child a /sub-task opens, after checking the id',
      receipt('/sub-task look it up'),
      facts(parked, { seenAt: null }),
      { needs: ['child:create_child'] },
    ],
    [
      'commits the row and note of the child it got',
      receipt('/sub-task look it up'),
      facts(parked, {
        seenAt: null,
        child: {
          taskId: 'child-1',
          state: TaskState.TASK_STATE_INPUT_REQUIRED,
          subState: undefined,
        },
      }),
      { answer: expect.objectContaining({ kind: 'receipt' }), commit: 'update' },
    ],
    [
      'cancels in its own commit, with the token to resume, before the cascade',
      decideReceipt(
        {
          taskId: TASK_ID,
          message: envelopeMessage('control', { action: 'cancel' }),
          sender: 'alice',
        },
        parseMessage(envelopeMessage('control', { action: 'cancel' })),
        'tiny-harness'
      ),
      facts(parked, { seenAt: null }),
      {
        answer: { kind: 'canceled', canceled: expect.objectContaining({ token: 'token-1' }) },
        commit: 'update',
      },
    ],
  ];
  for (const [name, decide, given, expected] of rows) {
    it(name, () => expect(summary(decide(given), given.record)).toEqual(expected));
  }

  it('refuses a message for a task that ended, writing nothing', () => {
    const ended = plainRecord({ state: TaskState.TASK_STATE_COMPLETED });
    expect(() => receipt('hello')(facts(ended))).toThrow(/closed|ended|terminal/i);
  });
});

describe('controls and news decide from the task alone', () => {
  const cancelByAlice = decideCancel(TASK_ID, { by: { participantId: 'alice' }, reason: 'enough' });
  const completeByAlice = decideCompletionRequest({
    taskId: TASK_ID,
    participantId: 'alice',
    reason: null,
  });
  it.each([
    [
      'a completion request resumes a parked task',
      completeByAlice,
      parked,
      {
        answer: { action: 'resume', token: 'token-1', taskId: TASK_ID, generation: 1 },
        commit: 'update',
      },
    ],
    [
      'a completion request cuts a running turn',
      completeByAlice,
      plainRecord(),
      { answer: { action: 'cut', taskId: TASK_ID, generation: 2 }, commit: 'update' },
    ],
    [
      'a cancel ends the task and hands back its token',
      cancelByAlice,
      parked,
      { answer: expect.objectContaining({ token: 'token-1' }), commit: 'update' },
    ],
    [
      'a cancel of a canceled task does nothing',
      cancelByAlice,
      plainRecord({ state: TaskState.TASK_STATE_CANCELED }),
      { answer: undefined, commit: null },
    ],
    [
      'a revival cuts a running task to a new generation',
      decideRevival(TASK_ID, 1, {}),
      plainRecord(),
      { answer: { action: 'cut', taskId: TASK_ID, generation: 2 }, commit: 'update' },
    ],
    [
      'a revival leaves a parked task to whoever wakes it',
      decideRevival(TASK_ID, 1, {}),
      parked,
      { answer: { action: 'none' }, commit: null },
    ],
    [
      'a revival of a generation that moved on does nothing',
      decideRevival(TASK_ID, 1, {}),
      plainRecord({ loop: { generation: 2 } }),
      { answer: { action: 'none' }, commit: null },
    ],
  ] as const)('%s', (_, decide, record, expected) => {
    expect(summary((decide as (f: Facts<Wants, never>) => never)(facts(record)), record)).toEqual(
      expected
    );
  });

  it('a cancel by a watcher is refused, with nothing written', () => {
    const watcher = decideCancel(TASK_ID, { by: { participantId: 'walter' }, reason: undefined });
    const record = plainRecord({
      extension: {
        participants: [
          { id: 'alice', kind: 'human', role: 'reporter', display_name: '' },
          { id: 'walter', kind: 'human', role: 'watcher', display_name: '' },
          { id: 'tiny-harness', kind: 'agent', role: 'assignee', display_name: '' },
        ],
      },
    });
    expect(() => watcher(facts(record))).toThrow();
  });

  it('a child’s result wakes its parked parent; a stranger child is not heard', () => {
    const change = {
      parentId: TASK_ID,
      childId: 'child-1',
      agent: null,
      state: TaskState.TASK_STATE_COMPLETED,
      subState: undefined,
      childLifecycle: 'delegated' as const,
      participantTask: false,
      remoteTurn: false,
      linkedByHarness: true,
      summary: 'the answer is 42',
      changeKey: 'v2',
      order: 2,
    };
    expect(summary(decideChildChange(change)(facts(parked)), parked)).toEqual({
      answer: { action: 'resume', token: 'token-1', taskId: TASK_ID, generation: 1 },
      commit: 'update',
    });
    const stranger = { ...change, linkedByHarness: false };
    expect(summary(decideChildChange(stranger)(facts(parked)), parked)).toEqual({
      answer: { action: 'none' },
      commit: null,
    });
  });
});
