import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { INPUT_MODES } from '../../core/a2a/agent-card.js';
import { A2aError } from '../../service/a2a-errors.js';
import type { SendOptions } from '../../service/a2a-service.js';
import { checkKeptContent } from './message-content.js';

/**
 * A decoded `SendMessageRequest` as the service takes it: the same for SendMessage and
 * SendStreamingMessage, on either binding. A request without a message is malformed, and one
 * carrying what the agent would not keep is refused (message-content.ts).
 */
export const sendOptionsOf = (request: SendMessageRequest, sender: string): SendOptions => {
  if (request.message === undefined) throw new A2aError('InvalidParams', 'message is required');
  // A media type the agent does not read is ContentTypeNotSupported (§3.1.1) before a part kind
  // it does not keep is InvalidParams.
  checkMediaTypes(request.message);
  checkKeptContent({ ...request, message: request.message });
  return {
    message: request.message,
    sender,
    historyLength: request.configuration?.historyLength,
    pushConfig: request.configuration?.taskPushNotificationConfig,
  };
};

const ACCEPTED: ReadonlySet<string> = new Set(INPUT_MODES);

/**
 * §3.1.1: a media type given in a message part that the agent does not accept is
 * ContentTypeNotSupported. A part that names none is read by its kind (text as text/plain).
 */
const checkMediaTypes = (message: Message) => {
  for (const [index, part] of message.parts.entries()) {
    const mediaType = part.mediaType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
    if (mediaType !== '' && !ACCEPTED.has(mediaType)) {
      throw new A2aError(
        'ContentTypeNotSupported',
        `message.parts[${index}].mediaType ${part.mediaType} is not one this agent reads (${INPUT_MODES.join(', ')})`
      );
    }
  }
};

/** SendMessage blocks unless the client asks for `returnImmediately` (§3.2.2). */
export const isBlocking = (request: SendMessageRequest): boolean =>
  request.configuration?.returnImmediately !== true;
