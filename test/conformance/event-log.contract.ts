import { Message, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, TaskEvent } from '../../functions/core/ports/event-log.js';
import type { TaskRecord, TaskStore } from '../../functions/core/ports/task-store.js';
import { makeRecord, makeTask, uid } from './fixtures.js';

export interface EventLogFixture {
  log: EventLog;
  /** The store whose commits write the log. */
  store: TaskStore;
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
 * the in-memory fake and the DynamoDB adapter. Events are written by the store's commits (the
 * TaskStore contract holds those to all-or-nothing); the log reads them back.
 */
export const describeEventLogContract = (name: string, makeLog: () => Promise<EventLogFixture>) => {
  describe(`EventLog contract: ${name}`, () => {
    let fixture: EventLogFixture;
    let log: EventLog;

    /** A task created with `first` as its first events, then one commit per later batch. */
    const logged = async (taskId: string, ...batches: TaskEvent[][]) => {
      const [first = [], ...rest] = batches;
      let { record } = await fixture.store.commit({
        kind: 'create',
        record: makeRecord(taskId),
        events: first,
      });
      for (const events of rest) {
        ({ record } = await fixture.store.commit({
          kind: 'update',
          base: record as TaskRecord,
          record: record as TaskRecord,
          events,
        }));
      }
      return record as TaskRecord;
    };

    beforeAll(async () => {
      fixture = await makeLog();
      log = fixture.log;
    });

    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    it('reads events after afterSeq, ascending, each as written, from seq 1 per task', async () => {
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
      await logged(taskId, events.slice(0, 1), events.slice(1, 3), events.slice(3));
      await logged(uid('task'), [{ kind: 'task', task: makeTask(uid('other')) }]);
      const all = await log.read(taskId);
      expect(all).toEqual(events.map((event, index) => ({ seq: index + 1, event, historySeq: 0 })));
      expect(await log.read(taskId, 2)).toEqual([
        { seq: 3, event: events[2], historySeq: 0 },
        { seq: 4, event: events[3], historySeq: 0 },
      ]);
      expect(await log.read(taskId, 4)).toEqual([]);
      expect(await log.read(uid('missing'))).toEqual([]);
      const first = all[0]?.event;
      expect(first?.kind === 'task' && first.task.status?.state).toBe(
        TaskState.TASK_STATE_SUBMITTED
      );
    });

    it('marks each event with the transcript’s last seq its commit left', async () => {
      const taskId = uid('task');
      const created = await logged(taskId, [{ kind: 'task', task: makeTask(taskId) }]);
      const moved = { ...created, loop: { ...created.loop, historySeq: 3 } };
      const { record } = await fixture.store.commit({
        kind: 'update',
        base: created,
        record: moved,
        events: [statusEvent(taskId, 'TASK_STATE_WORKING')],
      });
      await fixture.store.commit({
        kind: 'update',
        base: record as TaskRecord,
        record: record as TaskRecord,
        events: [statusEvent(taskId, 'TASK_STATE_INPUT_REQUIRED')],
      });
      expect((await log.read(taskId)).map((event) => event.historySeq)).toEqual([0, 3, 3]);
    });

    it('reads at most limit events, the first ones after afterSeq, so a long log is read in pages', async () => {
      const taskId = uid('task');
      await logged(
        taskId,
        [{ kind: 'task', task: makeTask(taskId) }],
        Array.from({ length: 6 }, () => statusEvent(taskId, 'TASK_STATE_WORKING'))
      );
      const pages: number[][] = [];
      for (let after = 0; ; ) {
        const page = await log.read(taskId, after, 3);
        if (page.length === 0) break;
        pages.push(page.map((entry) => entry.seq));
        after = page.at(-1)?.seq ?? after;
      }
      expect(pages).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
      expect(await log.read(taskId, 2, 100)).toHaveLength(5);
    });

    it('lastSeq is the newest seq: 0 before any event, then each commit’s last', async () => {
      const taskId = uid('task');
      expect(await log.lastSeq(taskId)).toBe(0);
      const record = await logged(taskId, [{ kind: 'task', task: makeTask(taskId) }]);
      expect(await log.lastSeq(taskId)).toBe(1);
      await fixture.store.commit({
        kind: 'update',
        base: record,
        record,
        events: [
          statusEvent(taskId, 'TASK_STATE_WORKING'),
          statusEvent(taskId, 'TASK_STATE_COMPLETED'),
        ],
      });
      expect(await log.lastSeq(taskId)).toBe(3);
      expect(await log.lastSeq(uid('missing'))).toBe(0);
    });

    it('of concurrent commits from one version, only the winner’s events are in the log', async () => {
      const taskId = uid('task');
      const record = await logged(taskId, [{ kind: 'task', task: makeTask(taskId) }]);
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, index) =>
          fixture.store.commit({
            kind: 'update',
            base: record,
            record,
            events: [statusEvent(taskId, 'TASK_STATE_WORKING', `e${index}`)],
          })
        )
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const read = await log.read(taskId);
      expect(read.map((entry) => entry.seq)).toEqual([1, 2]);
    });

    it('returns copies: mutating an event read never changes the log', async () => {
      const taskId = uid('task');
      await logged(taskId, [{ kind: 'task', task: makeTask(taskId, { contextId: 'ctx-copies' }) }]);
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
