import type { StreamResponse } from '@a2a-js/sdk';
import type { TaskEvent } from '../ports/event-log.js';

/**
 * An event of a task's log as the A2A `StreamResponse` that carries it, on a stream (a frame) or
 * to a webhook (a push notification): the same object for both.
 */
export const streamResponseOf = (event: TaskEvent): StreamResponse => {
  switch (event.kind) {
    case 'task':
      return { payload: { $case: 'task', value: event.task } };
    case 'status_update':
      return { payload: { $case: 'statusUpdate', value: event.statusUpdate } };
    case 'artifact_update':
      return { payload: { $case: 'artifactUpdate', value: event.artifactUpdate } };
    case 'message':
      return { payload: { $case: 'message', value: event.message } };
  }
};
