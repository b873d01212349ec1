import {
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { streamResponseOf } from '../../core/a2a/stream-response.js';
import type { TaskEvent } from '../../core/ports/event-log.js';

/**
 * Results in ProtoJSON, as both bindings send them (the SDK's `toJSON`), plus the fields ProtoJSON
 * would drop for holding their default but A2A wants on the wire.
 */

export function taskToJson(task: Task): unknown {
  return Task.toJSON(task);
}

export function streamResponseToJson(event: TaskEvent): unknown {
  return StreamResponse.toJSON(streamResponseOf(event));
}

export function sendMessageResultToJson(task: Task): unknown {
  return SendMessageResponse.toJSON({ payload: { $case: 'task', value: task } });
}

/**
 * ListTasks (§3.1.4): `nextPageToken` is always present ("" on the last page), as are the sizes
 * and the task list; with `includeArtifacts` each task carries `artifacts`, even an empty one.
 */
export function listTasksToJson(response: ListTasksResponse, includeArtifacts: boolean): unknown {
  return {
    tasks: response.tasks.map((task) => {
      const json = Task.toJSON(task) as Record<string, unknown>;
      return includeArtifacts ? { artifacts: [], ...json } : json;
    }),
    nextPageToken: response.nextPageToken,
    pageSize: response.pageSize,
    totalSize: response.totalSize,
  };
}

export function pushConfigToJson(config: TaskPushNotificationConfig): unknown {
  return TaskPushNotificationConfig.toJSON(config);
}

export function pushConfigListToJson(response: ListTaskPushNotificationConfigsResponse): unknown {
  return {
    configs: response.configs.map((config) => TaskPushNotificationConfig.toJSON(config)),
    nextPageToken: response.nextPageToken,
  };
}
