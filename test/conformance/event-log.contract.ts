import { Message, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, TaskEvent } from '../../functions/core/ports/event-log.js';
import { makeTask, uid } from './fixtures.js';

export interface EventLogFixture {
  log: EventLog;
  cleanup?: () => Promise<void>;
}

const statusEvent = (taskId: string, state: string, text = state): TaskEvent => ({
  kind: 'status_update',
  statusUpdate: TaskStatusUpdateEvent.fromJSON({
    taskId,
    contextId: 'ctx',
    status: {
      state,
      timestamp: '2026-01-01T00:00:01.000Z',
      message: { messageId: `${taskId}-${text}`, role: 'ROLE_AGENT', parts: [{ text }] },
    },
    metadata: { note: text },
  }),
});

/**
 * The `EventLog` port contract (functions/core/ports/event-log.ts), one test per clause, run by
 * the in-memory fake and the DynamoDB adapter. The log may be shared by all tests of a run.
 */
export const describeEventLogContract = (name: string, makeLog: () => Promise<EventLogFixture>) => {
  describe(`EventLog contract: ${name}`, () => {
    let fixture: EventLogFixture;
    let log: EventLog;

    beforeAll(async () => {
      fixture = await makeLog();
      log = fixture.log;
    });

    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    it('assigns seqs 1, 2, ... per task', async () => {
      const taskId = uid('task');
      const other = uid('task');
      expect(await log.append(taskId, { kind: 'task', task: makeTask(taskId) })).toBe(1);
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING'))).toBe(2);
      expect(await log.append(other, { kind: 'task', task: makeTask(other) })).toBe(1);
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_COMPLETED'))).toBe(3);
    });

    it('reads events after afterSeq, ascending, each as appended', async () => {
      const taskId = uid('task');
      const events: TaskEvent[] = [
        { kind: 'task', task: makeTask(taskId) },
        statusEvent(taskId, 'TASK_STATE_WORKING'),
        {
          kind: 'artifact_update',
          artifactUpdate: TaskArtifactUpdateEvent.fromJSON({
            taskId,
            contextId: 'ctx',
            artifact: { artifactId: 'a1', name: 'out', parts: [{ data: { rows: [1, 2] } }] },
            append: true,
            lastChunk: false,
          }),
        },
        {
          kind: 'message',
          message: Message.fromJSON({
            messageId: 'm1',
            taskId,
            contextId: 'ctx',
            role: 'ROLE_AGENT',
            parts: [{ text: 'hello' }],
            referenceTaskIds: ['other'],
          }),
        },
      ];
      for (const event of events) await log.append(taskId, event);
      const all = await log.read(taskId);
      expect(all).toEqual(events.map((event, index) => ({ seq: index + 1, event })));
      expect(await log.read(taskId, 2)).toEqual([
        { seq: 3, event: events[2] },
        { seq: 4, event: events[3] },
      ]);
      expect(await log.read(taskId, 4)).toEqual([]);
      expect(await log.read(uid('missing'))).toEqual([]);
      const first = all[0]?.event;
      expect(first?.kind === 'task' && first.task.status?.state).toBe(
        TaskState.TASK_STATE_SUBMITTED
      );
    });

    it('reads at most limit events, the first ones after afterSeq, so a long log is read in pages', async () => {
      const taskId = uid('task');
      await log.append(taskId, { kind: 'task', task: makeTask(taskId) });
      for (let i = 0; i < 6; i++)
        await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING'));

      const pages: number[][] = [];
      for (let after = 0; ; ) {
        const page = await log.read(taskId, after, 3);
        if (page.length === 0) break;
        pages.push(page.map((logged) => logged.seq));
        after = page.at(-1)?.seq ?? after;
      }

      expect(pages).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
      expect(await log.read(taskId, 2, 100)).toHaveLength(5);
    });

    it('lastSeq is the newest seq: 0 before any event, then each append’s, a duplicate moves nothing', async () => {
      const taskId = uid('task');
      expect(await log.lastSeq(taskId)).toBe(0);
      await log.append(taskId, { kind: 'task', task: makeTask(taskId) }, 'k1');
      expect(await log.lastSeq(taskId)).toBe(1);
      await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING'));
      await log.append(taskId, { kind: 'task', task: makeTask(taskId) }, 'k1');
      expect(await log.lastSeq(taskId)).toBe(2);
      expect(await log.lastSeq(uid('missing'))).toBe(0);
    });

    it('a keyed append is idempotent: the first seq, nothing stored again', async () => {
      const taskId = uid('task');
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING', 'a'), 'k1')).toBe(
        1
      );
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING', 'b'))).toBe(2);
      expect(
        await log.append(taskId, statusEvent(taskId, 'TASK_STATE_FAILED', 'retry'), 'k1')
      ).toBe(1);
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING', 'c'), 'k2')).toBe(
        3
      );
      const read = await log.read(taskId);
      expect(read.map((logged) => logged.seq)).toEqual([1, 2, 3]);
      expect(read[0]?.event).toEqual(statusEvent(taskId, 'TASK_STATE_WORKING', 'a'));
    });

    it('keys are per task', async () => {
      const one = uid('task');
      const two = uid('task');
      await log.append(one, statusEvent(one, 'TASK_STATE_WORKING'));
      expect(await log.append(one, statusEvent(one, 'TASK_STATE_WORKING'), 'shared')).toBe(2);
      expect(await log.append(two, statusEvent(two, 'TASK_STATE_WORKING'), 'shared')).toBe(1);
    });

    it('a long key works', async () => {
      const taskId = uid('task');
      const key = `turn:${'x'.repeat(3000)}`;
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING'), key)).toBe(1);
      expect(await log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING'), key)).toBe(1);
      expect(await log.read(taskId)).toHaveLength(1);
    });

    it('gives concurrent appends distinct, gap-free seqs', async () => {
      const taskId = uid('task');
      const seqs = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING', `e${index}`))
        )
      );
      expect([...seqs].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const read = await log.read(taskId);
      expect(read.map((logged) => logged.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      for (const [index, seq] of seqs.entries()) {
        expect(read[seq - 1]?.event).toEqual(
          statusEvent(taskId, 'TASK_STATE_WORKING', `e${index}`)
        );
      }
    });

    it('stores one event for concurrent appends with the same key', async () => {
      const taskId = uid('task');
      const seqs = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          log.append(taskId, statusEvent(taskId, 'TASK_STATE_WORKING', `r${index}`), 'once')
        )
      );
      expect(new Set(seqs)).toEqual(new Set([1]));
      expect(await log.read(taskId)).toHaveLength(1);
    });

    it('returns copies: mutating an event read or appended never changes the log', async () => {
      const taskId = uid('task');
      const task = makeTask(taskId, { contextId: 'ctx-copies' });
      await log.append(taskId, { kind: 'task', task });
      task.contextId = 'mutated input';
      const [read] = await log.read(taskId);
      if (read?.event.kind === 'task') read.event.task.id = 'mutated output';
      const [again] = await log.read(taskId);
      expect(again?.event).toEqual({
        kind: 'task',
        task: makeTask(taskId, { contextId: 'ctx-copies' }),
      } satisfies TaskEvent);
    });
  });
};
