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
 * goes only to an agent whose card speaks the task extension, and without the parent's
 * participants (people the agent does not know): it names us as the parent's agent, and the
 * agent adds us as reporter and itself as assignee. An agent that does not speak it reads the
 * text: the goal and the acceptance criteria.
 */
export const remoteBrief = (brief: Message, card: Pick<RemoteCard, 'taskExtension'>): Message => ({
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
    const { participants: _people, ...rest } = payload;
    return [{ ...part, content: { $case: 'data', value: { ...envelope, payload: rest } } }];
  }),
});
