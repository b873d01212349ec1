import type { SendMessageRequest } from '@a2a-js/sdk';
import { A2aError } from '../../service/a2a-errors.js';
import type { SendOptions } from '../../service/a2a-service.js';

/**
 * A decoded `SendMessageRequest` as the service takes it: the same for SendMessage and
 * SendStreamingMessage, on either binding. A request without a message is malformed.
 */
export const sendOptionsOf = (request: SendMessageRequest, sender: string): SendOptions => {
  if (request.message === undefined) throw new A2aError('InvalidParams', 'message is required');
  return {
    message: request.message,
    sender,
    historyLength: request.configuration?.historyLength,
    pushConfig: request.configuration?.taskPushNotificationConfig,
  };
};

/** SendMessage blocks unless the client asks for `returnImmediately` (§3.2.2). */
export const isBlocking = (request: SendMessageRequest): boolean =>
  request.configuration?.returnImmediately !== true;
