import { A2A_CONTENT_TYPE, StreamResponse } from '@a2a-js/sdk';
import { streamResponseOf } from '../a2a/stream-response.js';
import type { TaskEvent } from '../ports/event-log.js';
import type { PushConfig } from '../ports/push-config-store.js';

/** The header that carries a config's token back to its webhook (A2A §4.3). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * The body POSTed for an event: its `StreamResponse` in ProtoJSON (`{"statusUpdate": {...}}`),
 * the same for every config, so it is built once per event.
 */
export const notificationBody = (event: TaskEvent): string =>
  JSON.stringify(StreamResponse.toJSON(streamResponseOf(event)));

/**
 * The configs an event goes to: those whose creator is still a participant of the task. Access to
 * a task is its participants' alone (docs/identity.md), so someone who has left the task stops hearing
 * of it, though their config is still stored.
 */
export const recipientsOf = (
  configs: readonly PushConfig[],
  participantIds: readonly string[]
): PushConfig[] => configs.filter((config) => participantIds.includes(config.ownerId));

/**
 * The headers of one notification to a config whose secrets are open: the A2A media type, the
 * token when the client gave one, and the webhook's own credentials when it gave those.
 */
export const notificationHeaders = (
  config: Pick<PushConfig, 'token' | 'authentication'>
): Record<string, string> => ({
  'Content-Type': A2A_CONTENT_TYPE,
  ...(config.token === '' ? {} : { [NOTIFICATION_TOKEN_HEADER]: config.token }),
  ...(config.authentication === null
    ? {}
    : {
        Authorization:
          `${config.authentication.scheme} ${config.authentication.credentials}`.trim(),
      }),
});
