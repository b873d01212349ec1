import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { failTask } from '../../../functions/core/loop/fail-task.js';
import { park } from '../../../functions/core/loop/park.js';
import { renew } from '../../../functions/core/loop/renew.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { stateOf } from '../../../functions/core/task/a2a-task.js';
import { ALICE, harnessWith, STATES } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

/**
 * One read, one decision, one commit: each step operation reads the task record once and commits
 * once per decision (or not at all when it changes nothing), counted on the store the operations
 * use. A turn decides twice: what it folds from the inbox (committed before the model runs, so a
 * follower sees it) and the model's response with the turn's end.
 */
describe('each step operation reads the task record once and commits once per decision', () => {
  it('through a turn with a tool call, a turn without, the park and a message', async () => {
    const { harness } = harnessWith([
      {
        toolCalls: [
          { name: 'create_plan', arguments: { steps: [{ name: 'A', description: 'a' }] } },
        ],
      },
      { text: 'Planned.' },
    ]);
    const { deps, store } = harness;
    const counted = async <T>(operation: () => Promise<T>) => {
      const reads = [...store.recordReads.values()].reduce((sum, n) => sum + n, 0);
      const commits = store.commits.length;
      const result = await operation();
      return {
        result,
        reads: [...store.recordReads.values()].reduce((sum, n) => sum + n, 0) - reads,
        commits: store.commits.length - commits,
      };
    };
    const one = { reads: 1, commits: 1 };

    const started = await counted(() =>
      startTask(deps, { message: textMessage('go'), sender: ALICE })
    );
    expect(started).toMatchObject({ reads: 0, commits: 1 });
    const taskId = started.result.record.task.id;

    // The creation folded the message (the task is WORKING from it): the first turn's drain has
    // nothing to write, and the turn commits the response alone.
    expect(stateOf(started.result.record.task)).toBe(TaskState.TASK_STATE_WORKING);
    const called = await counted(() => takeTurn(deps, { taskId, generation: 1, turn: 0 }));
    expect(called).toMatchObject(one);
    const route = called.result.route;
    if (route.next !== 'execute_tools') throw new Error(`expected tool calls, got ${route.next}`);
    for (const call of route.calls) {
      expect(await counted(() => executeTool(deps, call))).toMatchObject(one);
    }
    // The second has nothing to fold: the response and the turn's end are one commit.
    const finished = await counted(() => takeTurn(deps, called.result.ref));
    expect(finished).toMatchObject(one);
    const parkRoute = finished.result.route;
    expect(parkRoute).toMatchObject({ next: 'park', subState: 'awaiting-next-message' });
    if (parkRoute.next !== 'park') throw new Error(`expected a park, got ${parkRoute.next}`);
    // The turn found nothing waiting: the park commits on what it decided on, reading nothing.
    expect(
      await counted(() => park(deps, finished.result.ref, 'token-1', parkRoute.decidedOn))
    ).toMatchObject({ reads: 0, commits: 1 });

    const received = await counted(() =>
      receiveMessage(deps, { taskId, message: textMessage('more'), sender: ALICE })
    );
    expect(received).toMatchObject(one);
    expect(received.result).toMatchObject({
      accepted: true,
      wake: { action: 'resume', token: 'token-1' },
    });
  });

  it('a message for the model, given the task as its caller read it, reads nothing more; only a duplicate reads its id', async () => {
    const { harness } = harnessWith([{ text: 'hi' }]);
    const { deps, store } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    const message = textMessage('more');
    const counted = async (given: typeof record) => {
      const [reads, idReads, commits] = [
        store.recordReads.get(taskId) ?? 0,
        store.idReads,
        store.commits.length,
      ];
      const receipt = await receiveMessage(deps, { taskId, message, sender: ALICE, record: given });
      return {
        receipt,
        reads: (store.recordReads.get(taskId) ?? 0) - reads,
        idReads: store.idReads - idReads,
        commits: store.commits.length - commits,
      };
    };

    const first = await counted((await store.get(taskId))!);
    expect(first).toMatchObject({ reads: 0, idReads: 0, commits: 1 });
    expect(first.receipt).toMatchObject({ accepted: true, duplicate: false });
    // The first message is in the transcript (its creation folded it); this one waits.
    expect(await store.readInbox(taskId)).toHaveLength(1);

    // The same id again: its commit is refused, the second decision reads the id and the task.
    const again = await counted((await store.get(taskId))!);
    expect(again).toMatchObject({ reads: 1, idReads: 1, commits: 0 });
    expect(again.receipt).toMatchObject({ accepted: true, duplicate: true });
    expect(await store.readInbox(taskId)).toHaveLength(1);
  });

  it('renew and fail read once and commit once; the superseded generation then writes nothing', async () => {
    const { harness } = harnessWith([{ text: 'hi' }]);
    const { deps, store } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    const reads = () => [...store.recordReads.values()].reduce((sum, n) => sum + n, 0);
    const counted = async <T>(operation: () => Promise<T>) => {
      const [before, commits] = [reads(), store.commits.length];
      const result = await operation();
      return { result, reads: reads() - before, commits: store.commits.length - commits };
    };

    const renewed = await counted(() => renew(deps, { taskId, generation: 1, turn: 0 }));
    expect(renewed).toMatchObject({ reads: 1, commits: 1 });
    expect(renewed.result.generation).toBe(2);
    const failed = await counted(() => failTask(deps, renewed.result, 'boom'));
    expect(failed).toMatchObject({ reads: 1, commits: 1 });
    expect(failed.result.route).toEqual({ next: 'end', state: STATES.FAILED });
    const stale = await counted(() => failTask(deps, { taskId, generation: 1, turn: 0 }, 'late'));
    expect(stale).toMatchObject({ reads: 1, commits: 0 });
  });

  it('an operation on a superseded generation reads once and writes nothing', async () => {
    const { harness } = harnessWith([{ text: 'hi' }]);
    const { deps, store } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const stale = { taskId: record.task.id, generation: 7, turn: 0 };
    const commits = store.commits.length;
    expect((await takeTurn(deps, stale)).route).toEqual({ next: 'superseded' });
    expect(await park(deps, stale, 'token-x')).toEqual({ wakeNow: true });
    expect(store.commits.length).toBe(commits);
  });
});
