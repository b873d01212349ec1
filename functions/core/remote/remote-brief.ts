import type { Message } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../a2a/identifiers.js';
import type { RemoteCard } from './remote-card.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A brief as a remote agent receives it. Nothing of this harness's own bookkeeping travels: no
 * context id (the agent's contexts are its own), no referenced task ids (ours mean nothing
 * there), no asserted participant id (the agent knows us by our credentials). The task envelope
 * goes only to an agent whose card speaks the task extension, with `delegated_from` naming the
 * parent (the agent records it as a parent on our side and works the task to its end); it adds
 * us as reporter and itself as assignee. An agent that does not speak it reads the text: the goal
 * and the acceptance criteria.
 */
export const remoteBrief = (
  brief: Message,
  card: Pick<RemoteCard, 'taskExtension'>,
  parentTaskId: string
): Message => ({
  ...brief,
  contextId: '',
  taskId: '',
  referenceTaskIds: [],
  metadata: undefined,
  parts: brief.parts.flatMap((part) => {
    const content = part.content;
    if (part.mediaType !== EVENT_MEDIA_TYPE || content?.$case !== 'data') return [part];
    if (!card.taskExtension || !isObject(content.value)) return [];
    const envelope = content.value;
    const payload = isObject(envelope.payload) ? envelope.payload : {};
    const delegated = { ...payload, delegated_from: { task_id: parentTaskId } };
    return [{ ...part, content: { $case: 'data', value: { ...envelope, payload: delegated } } }];
  }),
});
