import { describe, expect, it } from 'vitest';
import {
  decodeTaskRecord,
  encodeTaskRecord,
} from '../../../functions/adapters/dynamodb/item-codec.js';
import { loopFromStored, storedLoopJson } from '../../../functions/adapters/dynamodb/loop-codec.js';
import { unpackedText } from '../../../functions/adapters/dynamodb/packed-text.js';
import { ATTR } from '../../../functions/adapters/dynamodb/table.js';
import {
  initialLoopState,
  type LoopState,
  LoopStateSchema,
} from '../../../functions/core/loop/loop-state.schema.js';
import { makeRecord } from '../../conformance/fixtures.js';

const busy: LoopState = {
  ...initialLoopState(),
  generation: 3,
  turn: 7,
  needsModel: true,
  historySeq: 21,
  summary: 'earlier turns',
  actor: 'alice',
  pendingQuestion: {
    participantId: 'alice',
    question: 'Which one?',
    options: ['a', 'b'],
    callId: 'call-2',
  },
  appliedCalls: ['call-1'],
  usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 3 },
  childOrder: { child: 4 },
  claimedToken: 'token-9',
  childrenUsage: {
    usage: {
      model_calls: 1,
      input_tokens: 5,
      cached_input_tokens: 0,
      output_tokens: 1,
      cost_usd: 0,
    },
    unknown: [],
  },
};

describe('the loop state as a record stores it', () => {
  it('leaves out what a new task’s loop holds: a new loop stores its schema version alone', () => {
    expect(storedLoopJson(initialLoopState())).toEqual({ schemaVersion: 1 });
    expect(LoopStateSchema.parse(loopFromStored({ schemaVersion: 1 }))).toEqual(initialLoopState());
  });

  it('keeps every field that holds something else, and reads back the same loop', () => {
    const stored = storedLoopJson(busy);
    expect(Object.keys(stored).sort()).toEqual(
      [
        'schemaVersion',
        'generation',
        'turn',
        'needsModel',
        'historySeq',
        'summary',
        'actor',
        'pendingQuestion',
        'appliedCalls',
        'usage',
        'childOrder',
        'claimedToken',
        'childrenUsage',
      ].sort()
    );
    expect(LoopStateSchema.parse(loopFromStored(JSON.parse(JSON.stringify(stored))))).toEqual(busy);
  });

  it('reads a loop an earlier build stored whole as it was, and keeps one read from clobbering another', () => {
    const whole = JSON.parse(JSON.stringify(busy));
    expect(LoopStateSchema.parse(loopFromStored(whole))).toEqual(busy);
    const first = loopFromStored({ schemaVersion: 1 }) as LoopState;
    expect(first.appliedCalls).not.toBe(first.attemptedCalls);
    first.appliedCalls.push('changed');
    expect(first.attemptedCalls).toEqual([]);
    expect((loopFromStored({ schemaVersion: 1 }) as LoopState).appliedCalls).toEqual([]);
  });

  it('is what a record item holds, and what its decoding gives back', () => {
    const record = { ...makeRecord('task-loop'), loop: busy };
    const { item } = encodeTaskRecord(record, 1);
    const loopJson = JSON.parse(unpackedText(item[ATTR.loop]?.S ?? '{}'));
    expect(loopJson).not.toHaveProperty('approvals');
    expect(loopJson).not.toHaveProperty('parentTaskId');
    expect(decodeTaskRecord(item, 'task-loop').loop).toEqual({ ...busy, parkToken: null });
  });
});
