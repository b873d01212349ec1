import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { withTurnCut } from '../../../functions/core/intake/cut-turn.js';
import { withExecutionArrived } from '../../../functions/core/loop/park-token.js';
import {
  decideStartDelivered,
  generationStartOf,
  pendingStartOf,
  startPendingBefore,
} from '../../../functions/core/loop/pending-start.js';
import { changeOf } from '../../../functions/core/loop/records.js';
import { decideRenewal } from '../../../functions/core/loop/renew.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import type { NoEffects } from '../../../functions/core/unit-of-work/operation.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const NOW = '2026-12-06T10:00:00.000Z';

const facts = (record: TaskRecord) => ({
  record,
  observed: {} as NoEffects,
  reached: undefined,
  conflicts: 0,
  refusedForIds: 0,
  now: NOW,
});

/** A conversation whose first turn has run: its start is no longer pending. */
const arrivedTask = async (): Promise<TaskRecord> => {
  const { harness } = harnessWith([{ text: 'Parked.' }]);
  const record = await harness.start(textMessage('hi'), ALICE);
  expect(record.loop.startPendingSince).toBeNull();
  return record;
};

describe('a generation whose start is pending', () => {
  it('is marked from the commit that hands the task over: a cut and a renewal', async () => {
    const record = await arrivedTask();

    const cut = withTurnCut(changeOf(record), NOW).record;
    expect(cut.loop).toMatchObject({ generation: 2, startPendingSince: NOW });
    expect(pendingStartOf(cut)).toBe(NOW);
    expect(generationStartOf(cut)).toEqual({
      taskId: record.task.id,
      generation: 2,
      turn: record.loop.turn,
    });

    const renewed = decideRenewal({ taskId: record.task.id, generation: 1, turn: 1 })(
      facts(record)
    );
    expect(renewed).toMatchObject({ kind: 'done' });
    const committed = renewed.kind === 'done' ? renewed.commit : undefined;
    expect(committed).toMatchObject({ record: { loop: { startPendingSince: NOW } } });
  });

  it("is cleared by the execution's first write, with the claimed token", async () => {
    const record = await arrivedTask();
    const pending = withTurnCut(changeOf(record), NOW);
    const claimed = {
      ...pending,
      record: { ...pending.record, loop: { ...pending.record.loop, claimedToken: 't' } },
    };

    const arrived = withExecutionArrived(claimed).record.loop;

    expect(arrived).toMatchObject({ startPendingSince: null, claimedToken: null });
    expect(withExecutionArrived(changeOf(record))).toEqual(changeOf(record));
  });

  it('is overdue only before the time asked, and never for an ended task', async () => {
    const record = await arrivedTask();
    const pending = withTurnCut(changeOf(record), NOW).record;

    expect(startPendingBefore(pending, '2026-12-06T10:00:01.000Z')).toBe(true);
    expect(startPendingBefore(pending, NOW)).toBe(false);
    expect(startPendingBefore(record, '2100-01-01T00:00:00.000Z')).toBe(false);
    const ended = {
      ...pending,
      task: {
        ...pending.task,
        status: { ...pending.task.status!, state: TaskState.TASK_STATE_CANCELED },
      },
    };
    expect(pendingStartOf(ended)).toBeUndefined();
  });

  it("is cleared by the sweep's delivery for its own generation only", async () => {
    const record = await arrivedTask();
    const pending = { ...withTurnCut(changeOf(record), NOW).record, version: record.version };

    const delivered = decideStartDelivered(2)(facts(pending));
    expect(delivered).toMatchObject({
      kind: 'done',
      result: true,
      commit: { record: { loop: { startPendingSince: null, generation: 2 } } },
    });
    expect(decideStartDelivered(1)(facts(pending))).toMatchObject({ kind: 'done', result: false });
    expect(decideStartDelivered(1)(facts(pending))).not.toHaveProperty('commit.record');
    expect(decideStartDelivered(2)(facts(record))).toMatchObject({ result: false });
  });
});
