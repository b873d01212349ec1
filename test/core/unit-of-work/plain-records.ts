import { TaskState } from '@a2a-js/sdk';
import { DEFAULT_AGENT_ID, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import type { InboxItem } from '../../../functions/core/loop/inbox.schema.js';
import {
  initialLoopState,
  type LoopState,
} from '../../../functions/core/loop/loop-state.schema.js';
import type { ModelResponse } from '../../../functions/core/ports/model.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import type { TaskExtension } from '../../../functions/core/task/extension.schema.js';

export const TASK_ID = 'task-1';
export const NOW = '2026-12-04T12:00:00.000Z';

/**
 * A task record as plain data (no store made it): a conversation between alice (reporter) and
 * the agent (assignee), in `state`, with the loop state and extension given.
 */
export const plainRecord = (
  options: {
    state?: TaskState;
    loop?: Partial<LoopState>;
    extension?: Partial<TaskExtension>;
    version?: number;
    inboxCount?: number;
  } = {}
): TaskRecord => {
  const extension: TaskExtension = {
    name: 'Chat',
    type: null,
    goal: 'Talk',
    description: '',
    acceptance_criteria: [],
    participants: [
      { id: 'alice', kind: 'human', role: 'reporter', display_name: '' },
      { id: DEFAULT_AGENT_ID, kind: 'agent', role: 'assignee', display_name: '' },
    ],
    parent_tasks: [],
    sub_tasks: [],
    plan: null,
    lifecycle: 'conversation',
    ...options.extension,
  };
  return {
    task: {
      id: TASK_ID,
      contextId: 'ctx-1',
      status: {
        state: options.state ?? TaskState.TASK_STATE_WORKING,
        message: undefined,
        timestamp: NOW,
      },
      artifacts: [],
      history: [],
      metadata: { [TASK_METADATA_KEY]: extension },
    },
    loop: { ...initialLoopState(), ...options.loop },
    version: options.version ?? 3,
    eventSeq: 2,
    inboxCount: options.inboxCount ?? 0,
  };
};

export const message = (seq: number, text: string, participantId = 'alice'): InboxItem => ({
  kind: 'message',
  seq,
  id: `m${seq}`,
  participantId,
  source: 'human',
  text,
});

export const response = (
  text: string,
  toolCalls: ModelResponse['toolCalls'] = []
): ModelResponse => ({
  text,
  toolCalls,
  usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
  model: 'scripted',
  finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
});
