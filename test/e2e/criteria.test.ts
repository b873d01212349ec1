import { type Message, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import type { ModelRequest } from '../../functions/core/ports/model.js';
import type { TaskExtension } from '../../functions/core/task/extension.schema.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';
import { envelopeMessage } from '../support/messages.js';
import { PerTaskModel } from '../support/per-task-model.js';

const send = (message: Message, taskId = '') => ({
  tenant: '',
  message: { ...message, taskId },
  configuration: undefined,
  metadata: undefined,
});

const meet = (criterion: string, evidence: string) => ({
  toolCalls: [{ name: 'meet_criterion', arguments: { criterion, evidence } }],
});

const extensionOf = (task: { metadata?: Record<string, unknown> | undefined }) =>
  task.metadata?.[TASK_METADATA_KEY] as TaskExtension;

const read = (request: ModelRequest | undefined) =>
  (request?.input ?? []).map((item) => (item.type === 'message' ? item.text : '')).join('\n');

/**
 * Acceptance criteria end to end: the real A2A client over HTTP, the synthesized state machine on
 * the local interpreter, DynamoDB Local, and the stream stand-in carrying a child's criteria count
 * to its parent's row. Tasks a client starts are delegated here, and one reminder is given.
 */
describe('acceptance criteria through the local stack', () => {
  const model = new PerTaskModel([
    // 1: alice's release notes.
    {
      replies: [
        meet('c1', 'Breaking changes listed: the config moved.'),
        { text: 'Done.' },
        { text: 'Done, I think.' },
        meet('c1', 'Breaking changes listed: the config moved and v1 is gone.'),
        meet('c2', 'The upgrade guide closes the notes.'),
        { text: 'Both criteria hold now.' },
      ],
    },
    // 2: a parent that delegates research with two criteria; 3: that child.
    {
      replies: [
        {
          toolCalls: [
            {
              name: 'spawn_subtask',
              arguments: {
                name: 'Research',
                goal: 'Find sources',
                acceptance_criteria: ['Three sources', 'Each one dated'],
              },
            },
          ],
        },
        { text: 'Waiting for the research.' },
        { text: 'The research is in.' },
      ],
    },
    {
      replies: [
        meet('c1', 'a, b and c'),
        meet('c2', 'all three from 2025'),
        { text: 'Three dated sources.' },
      ],
    },
  ]);
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      model,
      env: { TINY_HARNESS_TASK_LIFECYCLE: 'delegated', TINY_HARNESS_CRITERIA_REMINDERS: '1' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('parks for review with a criterion unmet, refuses a watcher, and takes a reporter’s rejection to completion', async () => {
    const alice = await clientFor(stack, 'alice');
    const bob = await clientFor(stack, 'bob');
    const brief = envelopeMessage(
      'task',
      {
        name: 'Release notes',
        goal: 'Write the release notes for 2.0',
        acceptance_criteria: [
          { text: 'Lists every breaking change' },
          { text: 'Has an upgrade guide' },
        ],
        participants: [
          { id: 'alice', kind: 'human', role: 'reporter' },
          { id: 'bob', kind: 'human', role: 'watcher' },
        ],
      },
      { text: 'Write the release notes', messageId: `criteria-${Date.now()}-1` }
    );

    const parked = asTask(await alice.sendMessage(send(brief)));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-review' });
    const status = parked.status?.message?.parts[0]?.content;
    expect(status?.$case === 'text' && status.value).toContain(
      'Review needed: 1 of 2 acceptance criteria not met after 1 reminder(s)'
    );
    const [c1, c2] = extensionOf(parked).acceptance_criteria;
    expect(c1).toMatchObject({
      id: 'c1',
      met: true,
      met_by: 'tiny-harness',
      evidence: { text: 'Breaking changes listed: the config moved.' },
    });
    expect(c2).toMatchObject({ id: 'c2', met: false });
    // The one reminder named c2.
    expect(read(model.requests[2])).toContain('[harness] This task cannot complete yet');
    expect(read(model.requests[2])).toContain('c2 "Has an upgrade guide"');

    const reject = (criterion: string, reason: string, id: string) =>
      send(
        envelopeMessage(
          'control',
          { action: 'reject_criterion', criterion, reason },
          { messageId: `criteria-${Date.now()}-${id}` }
        ),
        parked.id
      );
    await expect(bob.sendMessage(reject('c1', 'I would say more', 'bob'))).rejects.toThrow(
      /only a reporter or an admin may reject an acceptance criterion; bob is a watcher/
    );
    const untouched = await alice.getTask({ tenant: '', id: parked.id });
    expect(extensionOf(untouched).acceptance_criteria[0]?.met).toBe(true);

    await alice.sendMessage(reject('c1', 'the removal of v1 is missing', 'alice'));

    const done = await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parked.id });
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    });
    const criteria = extensionOf(done).acceptance_criteria;
    expect(criteria.map((criterion) => [criterion.id, criterion.met, criterion.met_by])).toEqual([
      ['c1', true, 'tiny-harness'],
      ['c2', true, 'tiny-harness'],
    ]);
    expect(criteria[0]?.evidence?.text).toContain('v1 is gone');
    // The turn after the rejection read alice's reason.
    expect(read(model.requests[3])).toContain(
      'alice (reporter) rejected acceptance criterion c1 "Lists every breaking change": the removal of v1 is missing'
    );
    // Every change of the criteria went out as an updated Task on the task's stream.
    const logged = (await stack.runtime.loop.events.read(parked.id)).flatMap((entry) =>
      entry.event.kind === 'task' ? [extensionOf(entry.event.task)] : []
    );
    expect(logged.some((extension) => extension.acceptance_criteria[0]?.rejection !== null)).toBe(
      true
    );
  });

  it("carries a child's criteria count to its parent's row through the stream: 1/2, then 2/2", async () => {
    const alice = await clientFor(stack, 'alice');
    const parent = asTask(
      await alice.sendMessage(
        send(
          envelopeMessage(
            'task',
            { name: 'Report', goal: 'Write a report' },
            { text: 'Write a report', messageId: `criteria-${Date.now()}-parent` }
          )
        )
      )
    );

    const done = await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    }, 30_000);
    const row = extensionOf(done).sub_tasks[0];
    expect(row).toMatchObject({ state: 'TASK_STATE_COMPLETED', criteria: { met: 2, total: 2 } });
    const counts = (await stack.runtime.loop.events.read(parent.id)).flatMap((entry) =>
      entry.event.kind === 'task'
        ? extensionOf(entry.event.task).sub_tasks.flatMap((r) =>
            r.criteria === null ? [] : [`${r.criteria.met}/${r.criteria.total}`]
          )
        : []
    );
    expect([...new Set(counts)]).toEqual(['0/2', '1/2', '2/2']);
  });
});
