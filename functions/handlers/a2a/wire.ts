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

export const taskToJson = (task: Task): unknown => Task.toJSON(task);

export const streamResponseToJson = (event: TaskEvent): unknown =>
  StreamResponse.toJSON(streamResponseOf(event));

export const sendMessageResultToJson = (task: Task): unknown =>
  SendMessageResponse.toJSON({ payload: { $case: 'task', value: task } });

/**
 * ListTasks (§3.1.4): `nextPageToken` is always present ("" on the last page), as are the sizes
 * and the task list; with `includeArtifacts` each task carries `artifacts`, even an empty one.
 */
export const listTasksToJson = (
  response: ListTasksResponse,
  includeArtifacts: boolean
): unknown => ({
  tasks: response.tasks.map((task) => {
    const json = Task.toJSON(task) as Record<string, unknown>;
    return includeArtifacts ? { artifacts: [], ...json } : json;
  }),
  nextPageToken: response.nextPageToken,
  pageSize: response.pageSize,
  totalSize: response.totalSize,
});

export const pushConfigToJson = (config: TaskPushNotificationConfig): unknown =>
  TaskPushNotificationConfig.toJSON(config);

export const pushConfigListToJson = (
  response: ListTaskPushNotificationConfigsResponse
): unknown => ({
  configs: response.configs.map((config) => TaskPushNotificationConfig.toJSON(config)),
  nextPageToken: response.nextPageToken,
});
