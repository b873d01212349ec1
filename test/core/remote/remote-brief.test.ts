import { describe, expect, it } from 'vitest';
import { EVENT_MEDIA_TYPE } from '../../../functions/core/a2a/identifiers.js';
import { childBrief } from '../../../functions/core/loop/children.js';
import { remoteBrief } from '../../../functions/core/remote/remote-brief.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const briefFor = async () => {
  const { harness } = harnessWith([{ text: 'Parked.' }]);
  const parent = await harness.start(textMessage('go'), ALICE);
  parentId = parent.task.id;
  return childBrief({
    parent,
    command: {
      kind: 'spawn_subtask',
      name: 'Books',
      goal: 'Balance the books',
      acceptanceCriteria: ['no difference'],
      agent: 'ledger',
      stepId: null,
      budget: null,
    },
    messageId: `${parent.task.id}:1:1:call-1`,
    agentId: 'alpha',
  }).message;
};

let parentId = '';

describe('a brief as a remote agent receives it', () => {
  it("keeps the text and the message id, and none of this harness's own ids", async () => {
    const brief = await briefFor();
    const sent = remoteBrief(brief, { taskExtension: true }, parentId);
    expect(sent).toMatchObject({
      messageId: brief.messageId,
      contextId: '',
      taskId: '',
      referenceTaskIds: [],
      metadata: undefined,
    });
    expect(sent.parts[0]).toEqual(brief.parts[0]);
    expect(brief.referenceTaskIds).toHaveLength(1);
  });

  it("sends the task envelope, without the parent's people, naming the parent as delegated_from to an agent that speaks the extension", async () => {
    const brief = await briefFor();
    const envelope = remoteBrief(brief, { taskExtension: true }, parentId).parts[1];
    expect(envelope?.mediaType).toBe(EVENT_MEDIA_TYPE);
    const value = envelope?.content?.$case === 'data' ? envelope.content.value : undefined;
    expect(value).toEqual({
      kind: 'task',
      payload: {
        name: 'Books',
        goal: 'Balance the books',
        acceptance_criteria: [{ text: 'no difference' }],
        delegated_from: { task_id: parentId },
      },
    });
  });

  it('sends the text alone to an agent that does not', async () => {
    const sent = remoteBrief(await briefFor(), { taskExtension: false }, parentId);
    expect(sent.parts).toHaveLength(1);
    expect(sent.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Balance the books\n\nAcceptance criteria:\n- no difference',
    });
  });
});
