import { Role, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { streamResponseOf } from '../../../functions/core/a2a/stream-response.js';
import type { TaskEvent } from '../../../functions/core/ports/event-log.js';
import type { PushConfig } from '../../../functions/core/ports/push-config-store.js';
import {
  NOTIFICATION_TOKEN_HEADER,
  notificationBody,
  notificationHeaders,
  recipientsOf,
} from '../../../functions/core/push/notification.js';

const STATUS = {
  state: TaskState.TASK_STATE_WORKING,
  message: undefined,
  timestamp: '2026-01-01T00:00:00.000Z',
};

const task: Task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: STATUS,
  artifacts: [],
  history: [],
  metadata: undefined,
};

const message = {
  messageId: 'm-1',
  contextId: 'ctx-1',
  taskId: 'task-1',
  role: Role.ROLE_AGENT,
  parts: [
    {
      content: { $case: 'text' as const, value: 'hi' },
      metadata: undefined,
      filename: '',
      mediaType: '',
    },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
};

const EVENTS: Array<[string, TaskEvent, unknown]> = [
  [
    'task',
    { kind: 'task', task },
    {
      task: {
        id: 'task-1',
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_WORKING', timestamp: STATUS.timestamp },
      },
    },
  ],
  [
    'statusUpdate',
    {
      kind: 'status_update',
      statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: STATUS, metadata: undefined },
    },
    {
      statusUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_WORKING', timestamp: STATUS.timestamp },
      },
    },
  ],
  [
    'artifactUpdate',
    {
      kind: 'artifact_update',
      artifactUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        artifact: {
          artifactId: 'a-1',
          name: 'notes',
          description: '',
          parts: message.parts,
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    },
    {
      artifactUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        artifact: { artifactId: 'a-1', name: 'notes', parts: [{ text: 'hi' }] },
        lastChunk: true,
      },
    },
  ],
  [
    'message',
    { kind: 'message', message },
    {
      message: {
        messageId: 'm-1',
        contextId: 'ctx-1',
        taskId: 'task-1',
        role: 'ROLE_AGENT',
        parts: [{ text: 'hi' }],
      },
    },
  ],
];

const config = (overrides: Partial<PushConfig> = {}): PushConfig => ({
  taskId: 'task-1',
  id: 'hook',
  ownerId: 'alice',
  url: 'https://hooks.example.com/a2a',
  token: '',
  authentication: null,
  ...overrides,
});

describe('the push notification of an event (A2A §4.3)', () => {
  it.each(EVENTS)('posts a %s event as its StreamResponse in ProtoJSON', (kind, event, json) => {
    expect(streamResponseOf(event).payload?.$case).toBe(kind);
    expect(JSON.parse(notificationBody(event))).toMatchObject(json as object);
    expect(Object.keys(JSON.parse(notificationBody(event)))).toEqual([kind]);
  });

  it('sends the A2A media type, and nothing else when the config has no token or credentials', () => {
    expect(notificationHeaders(config())).toEqual({ 'Content-Type': 'application/a2a+json' });
  });

  it('sends the token in X-A2A-Notification-Token when there is one', () => {
    expect(notificationHeaders(config({ token: 'tok-123' }))).toEqual({
      'Content-Type': 'application/a2a+json',
      [NOTIFICATION_TOKEN_HEADER]: 'tok-123',
    });
  });

  it('sends the webhook’s credentials as Authorization: <scheme> <credentials>, with the token too', () => {
    const headers = notificationHeaders(
      config({ token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 'secret' } })
    );
    expect(headers).toEqual({
      'Content-Type': 'application/a2a+json',
      'X-A2A-Notification-Token': 'tok-123',
      Authorization: 'Bearer secret',
    });
  });

  it('goes to the configs of the task’s current participants only', () => {
    const configs = [
      config({ id: 'a', ownerId: 'alice' }),
      config({ id: 'b', ownerId: 'bob' }),
      config({ id: 'c', ownerId: 'alice' }),
    ];
    expect(recipientsOf(configs, ['alice', 'carol']).map((c) => c.id)).toEqual(['a', 'c']);
    expect(recipientsOf(configs, [])).toEqual([]);
  });
});
