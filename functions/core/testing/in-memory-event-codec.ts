import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { InvalidTaskRecordError } from '../errors.js';
import type { TaskEvent } from '../ports/event-log.js';

/** An event as JSON text, its payload in ProtoJSON (what the DynamoDB adapter stores). */
export const encodeEvent = (event: TaskEvent): string => {
  switch (event.kind) {
    case 'task':
      if (typeof event.task.id !== 'string' || event.task.id === '') {
        throw new InvalidTaskRecordError('refusing to store an invalid event: task without id');
      }
      return JSON.stringify({ kind: event.kind, task: Task.toJSON(event.task) });
    case 'status_update':
      return JSON.stringify({
        kind: event.kind,
        statusUpdate: TaskStatusUpdateEvent.toJSON(event.statusUpdate),
      });
    case 'artifact_update':
      return JSON.stringify({
        kind: event.kind,
        artifactUpdate: TaskArtifactUpdateEvent.toJSON(event.artifactUpdate),
      });
    case 'message':
      return JSON.stringify({ kind: event.kind, message: Message.toJSON(event.message) });
  }
};

export const decodeEvent = (text: string): TaskEvent => {
  const stored = JSON.parse(text) as { kind: TaskEvent['kind'] } & Record<string, unknown>;
  switch (stored.kind) {
    case 'task':
      return { kind: 'task', task: Task.fromJSON(stored.task) };
    case 'status_update':
      return {
        kind: 'status_update',
        statusUpdate: TaskStatusUpdateEvent.fromJSON(stored.statusUpdate),
      };
    case 'artifact_update':
      return {
        kind: 'artifact_update',
        artifactUpdate: TaskArtifactUpdateEvent.fromJSON(stored.artifactUpdate),
      };
    case 'message':
      return { kind: 'message', message: Message.fromJSON(stored.message) };
  }
};
