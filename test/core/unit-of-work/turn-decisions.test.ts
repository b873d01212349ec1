import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_CONFIG } from '../../../functions/core/loop/config.js';
import { modelCallOf } from '../../../functions/core/loop/invoke-model.js';
import {
  type Drained,
  decideTurn,
  type TurnWants,
} from '../../../functions/core/loop/take-turn.js';
import { stateName, stateOf, subStateOf } from '../../../functions/core/task/a2a-task.js';
import { ToolRegistry } from '../../../functions/core/tools/registry.js';
import type { Facts, Observed } from '../../../functions/core/unit-of-work/operation.js';
import { summary, written } from './outcome-summary.js';
import { message, NOW, plainRecord, response, TASK_ID } from './plain-records.js';

const REF = { taskId: TASK_ID, generation: 1, turn: 0 };
const decide = decideTurn(REF, { config: DEFAULT_LOOP_CONFIG, tools: new ToolRegistry() });

const called = (text: string, toolCalls: Parameters<typeof response>[1] = []) =>
  modelCallOf({
    request: { instructions: '', input: [], tools: [], cacheKey: TASK_ID, maxOutputTokens: 10 },
    characters: 100,
    response: response(text, toolCalls),
    prices: undefined,
    startedAt: NOW,
    at: NOW,
  });

/** What the compaction effect gives when nothing needs compacting: the request as assembled. */
const NO_COMPACTION = {
  record: null,
  context: {
    request: { instructions: '', input: [], tools: [], cacheKey: TASK_ID, maxOutputTokens: 10 },
    characters: 0,
  },
};

const drained: Drained = { ref: REF, inbox: { count: 1, left: [] } };
const fresh = plainRecord({ loop: { needsModel: true } });
const delegated = plainRecord({
  loop: { needsModel: true },
  extension: { lifecycle: 'delegated' },
});

const facts = (
  record: ReturnType<typeof plainRecord>,
  observed: Observed<TurnWants>,
  reached?: Drained
): Facts<TurnWants, Drained> => ({
  record,
  observed,
  reached,
  conflicts: 0,
  refusedForIds: 0,
  now: NOW,
});

/**
 * One turn's decision from plain data: what was read and what the effects produced, to the next
 * effect, the checkpoint, or the commit and route.
 */
describe('the turn decides from what it read and what its effects produced', () => {
  const rows: [string, Facts<TurnWants, Drained>, unknown][] = [
    ['asks for the inbox first', facts(fresh, {}), { needs: ['inbox:read_inbox'] }],
    [
      'folds a message and commits the drain before the model runs',
      facts(plainRecord({ inboxCount: 1 }), { inbox: [message(1, 'hi')] }),
      { reached: { ref: REF, inbox: { count: 1, left: [] } }, commit: 'update' },
    ],
    [
      'goes on to the model at once when the drain writes nothing',
      facts(fresh, { inbox: [] }),
      { reached: { ref: REF, inbox: { count: 0, left: [] } }, commit: null },
    ],
    ['then reads the transcript', facts(fresh, {}, drained), { needs: ['history:read_history'] }],
    [
      'then asks whether to compact',
      facts(fresh, { history: [] }, drained),
      { needs: ['compaction:compact'] },
    ],
    [
      'then calls the model',
      facts(fresh, { history: [], compaction: NO_COMPACTION }, drained),
      { needs: ['model:call_model'] },
    ],
    [
      'routes tool calls to their steps, with the response in the same commit',
      facts(
        fresh,
        {
          compaction: NO_COMPACTION,
          model: called('', [{ id: 'c1', name: 'ask', arguments: '{}' }]),
        },
        drained
      ),
      {
        answer: {
          ref: { ...REF, turn: 1 },
          route: { next: 'execute_tools', calls: [{ ref: { ...REF, turn: 1 }, callId: 'c1' }] },
        },
        commit: 'update',
      },
    ],
    [
      'parks a conversation for its next message once the model answered',
      facts(fresh, { compaction: NO_COMPACTION, model: called('Hello.') }, drained),
      {
        answer: {
          ref: { ...REF, turn: 1 },
          route: {
            next: 'park',
            subState: 'awaiting-next-message',
            decidedOn: { version: 4, inboxCount: 1 },
          },
        },
        commit: 'update',
      },
    ],
    [
      'asks for the inbox again before ending a delegated task',
      facts(delegated, { compaction: NO_COMPACTION, model: called('Done.') }, drained),
      { needs: ['inboxAtEnd:read_inbox'] },
    ],
    [
      'then for decide_completion',
      facts(
        delegated,
        { compaction: NO_COMPACTION, model: called('Done.'), inboxAtEnd: [] },
        drained
      ),
      { needs: ['verdict:decide_completion'] },
    ],
    [
      'takes another turn when something came meanwhile',
      facts(
        delegated,
        { compaction: NO_COMPACTION, model: called('Done.'), inboxAtEnd: [message(2, 'wait')] },
        drained
      ),
      { answer: { ref: { ...REF, turn: 1 }, route: { next: 'turn' } }, commit: 'update' },
    ],
    [
      'completes on the verdict',
      facts(
        delegated,
        {
          compaction: NO_COMPACTION,
          model: called('Done.'),
          inboxAtEnd: [],
          verdict: { decision: 'complete' },
        },
        drained
      ),
      {
        answer: { ref: { ...REF, turn: 1 }, route: { next: 'end', state: 'TASK_STATE_COMPLETED' } },
        commit: 'update',
      },
    ],
    [
      'writes nothing for a task that ended',
      facts(plainRecord({ state: TaskState.TASK_STATE_CANCELED }), { inbox: [] }),
      { answer: { ref: REF, route: { next: 'end', state: 'TASK_STATE_CANCELED' } }, commit: null },
    ],
    [
      'writes nothing for a generation that was superseded',
      facts(plainRecord({ loop: { generation: 2 } }), { inbox: [] }),
      { answer: { ref: REF, route: { next: 'superseded' } }, commit: null },
    ],
    [
      'reuses a response committed before a retry instead of calling again',
      facts(plainRecord({ loop: { turn: 1, response: response('Hi.') } }), {}, drained),
      { answer: { ref: { ...REF, turn: 1 }, route: { next: 'turn' } }, commit: null },
    ],
  ];
  for (const [name, given, expected] of rows) {
    it(name, () => expect(summary(decide(given), given.record)).toEqual(expected));
  }

  it('commits the model response as the turn: transcript, usage and the park in one record', () => {
    const outcome = decide(
      facts(fresh, { compaction: NO_COMPACTION, model: called('Hello.') }, drained)
    );
    const record = written(outcome);
    expect(stateName(stateOf(record.task))).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(subStateOf(record.task)).toBe('awaiting-next-message');
    expect(record.loop).toMatchObject({
      turn: 1,
      historySeq: 1,
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  });
});
