import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { ALICE, harnessWith, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

/** What clients read of a task's result: its artifacts, and the updates that stream them. */
describe('a completed task carries its answer as an artifact', () => {
  it('streams the answer as an artifact update before the task completes', async () => {
    const { harness } = harnessWith([{ text: 'The answer is 42.' }]);
    const { task } = await harness.start(textMessage('what is it?'), ALICE, {
      lifecycle: 'delegated',
    });
    const record = await harness.task(task.id);
    expect(view(record).state).toBe(STATES.COMPLETED);
    expect(record.task.artifacts).toEqual([
      expect.objectContaining({
        artifactId: `${task.id}:answer`,
        name: 'answer',
        parts: [
          expect.objectContaining({ content: { $case: 'text', value: 'The answer is 42.' } }),
        ],
      }),
    ]);
    const kinds = (await harness.events.read(task.id)).map(({ event }) =>
      event.kind === 'status_update' ? `status ${event.statusUpdate.status?.state}` : event.kind
    );
    const artifact = kinds.indexOf('artifact_update');
    expect(artifact).toBeGreaterThan(-1);
    expect(kinds.slice(artifact + 1)).toContain(`status ${TaskState.TASK_STATE_COMPLETED}`);
  });

  it('puts the answer’s data first when the answer is JSON, then its text', async () => {
    const { harness } = harnessWith([{ text: '{"total": 3, "items": ["a", "b", "c"]}' }]);
    const { task } = await harness.start(textMessage('count'), ALICE, { lifecycle: 'delegated' });
    const [artifact] = (await harness.task(task.id)).task.artifacts;
    expect(artifact?.parts.map((part) => part.content)).toEqual([
      { $case: 'data', value: { total: 3, items: ['a', 'b', 'c'] } },
      { $case: 'text', value: '{"total": 3, "items": ["a", "b", "c"]}' },
    ]);
  });

  it('makes none for a conversation that parks', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }]);
    const { task } = await harness.start(textMessage('hi'), ALICE);
    expect(view(await harness.task(task.id)).state).toBe(STATES.INPUT_REQUIRED);
    expect((await harness.task(task.id)).task.artifacts).toEqual([]);
  });
});
