import type { Message } from '@a2a-js/sdk';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { SEALED_PREFIX } from '../../functions/core/ports/secret-sealer.js';
import { notificationBody } from '../../functions/core/push/notification.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import { localDynamoDbClientConfig } from '../../functions/local/dynamodb-local.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { storedIdOf } from '../../functions/service/push-configs.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';
import { pushConfigRequest } from '../support/push.js';
import { type Delivery, startWebhooks } from '../support/webhooks.js';

let counter = 0;
const send = (text: string, taskId = '', contextId = '') => {
  const message: Message = userTextMessage({
    messageId: `push-e2e-${Date.now()}-${++counter}`,
    text,
    taskId,
    contextId,
  });
  return { tenant: '', message, configuration: undefined, metadata: undefined };
};

const statusOf = (delivery: Delivery | undefined): unknown =>
  delivery === undefined ? undefined : JSON.parse(delivery.body).statusUpdate?.status?.state;

describe('push notifications through the local stack', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;
  let webhooks: Awaited<ReturnType<typeof startWebhooks>>;

  beforeAll(async () => {
    webhooks = await startWebhooks({ '/flaky': 2 });
    stack = await startStack({
      model,
      env: { TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true' },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await webhooks?.close();
  });

  it('POSTs the task’s events, in log order, to each webhook with its token and credentials; a webhook that fails twice still gets every one; the stored config holds no clear secret', async () => {
    model.push({ text: 'Hello Alice.' }, { text: 'Noted.' });
    const alice = await clientFor(stack, 'alice');
    const parked = asTask(await alice.sendMessage(send('hi')));

    const created = await alice.createTaskPushNotificationConfig(
      pushConfigRequest({
        id: 'steady',
        taskId: parked.id,
        url: webhooks.url('/steady'),
        token: 'tok-e2e-steady',
        authentication: { scheme: 'Bearer', credentials: 'cred-e2e-steady' },
      })
    );
    await alice.createTaskPushNotificationConfig(
      pushConfigRequest({
        id: 'flaky',
        taskId: parked.id,
        url: webhooks.url('/flaky'),
        token: 'tok-e2e-flaky',
      })
    );
    expect(created).toMatchObject({ token: 'tok-e2e-steady' });
    await alice.sendMessage(send('one more thing', parked.id, parked.contextId));

    // Both webhooks end with the task parked again (INPUT_REQUIRED).
    for (const path of ['/steady', '/flaky']) {
      await eventually(async () =>
        statusOf(webhooks.received(path).at(-1)) === 'TASK_STATE_INPUT_REQUIRED' ? true : undefined
      );
    }

    // What each got is the tail of the task's log, in order, as StreamResponse JSON: everything
    // from some event on (an event the first turn appended while the config was being created
    // may be in it too, at least once), and always the second turn's WORKING ... INPUT_REQUIRED.
    const log = (await stack.runtime.loop.events.read(parked.id)).map((logged) =>
      notificationBody(logged.event)
    );
    for (const path of ['/steady', '/flaky']) {
      const bodies = webhooks.received(path).map((delivery) => delivery.body);
      expect(bodies.length).toBeGreaterThanOrEqual(2);
      expect(bodies).toEqual(log.slice(log.length - bodies.length));
      const states = webhooks.received(path).map(statusOf);
      expect(states.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(states.slice(0, -1)).toContain('TASK_STATE_WORKING');
    }
    expect(webhooks.attempts('/flaky')).toBe(webhooks.received('/flaky').length + 2);

    for (const delivery of webhooks.received('/steady')) {
      expect(delivery.headers['content-type']).toBe('application/a2a+json');
      expect(delivery.headers['x-a2a-notification-token']).toBe('tok-e2e-steady');
      expect(delivery.headers.authorization).toBe('Bearer cred-e2e-steady');
    }
    for (const delivery of webhooks.received('/flaky')) {
      expect(delivery.headers['x-a2a-notification-token']).toBe('tok-e2e-flaky');
      expect(delivery.headers.authorization).toBeUndefined();
    }

    // At rest, in DynamoDB Local, the config carries its secrets sealed.
    const dynamodb = new DynamoDBClient(
      localDynamoDbClientConfig(stack.runtime.config.TINY_HARNESS_DYNAMODB_ENDPOINT ?? '')
    );
    try {
      const { Item: item } = await dynamodb.send(
        new GetItemCommand({
          TableName: stack.runtime.config.TINY_HARNESS_TABLE,
          // Config ids are per participant: stored under the owner and the id the client gave.
          Key: {
            pk: { S: `TASK#${parked.id}` },
            sk: { S: `PUSH#${storedIdOf('alice', 'steady')}` },
          },
        })
      );
      const stored = JSON.stringify(item);
      expect(stored).toContain(webhooks.url('/steady'));
      expect(stored).not.toContain('tok-e2e-steady');
      expect(stored).not.toContain('cred-e2e-steady');
      const data = JSON.parse(item?.data?.S ?? '{}');
      expect(data.token.startsWith(SEALED_PREFIX)).toBe(true);
      expect(data.authentication.credentials.startsWith(SEALED_PREFIX)).toBe(true);
    } finally {
      dynamodb.destroy();
    }
    // And its owner reads it back in clear.
    expect(
      await alice.getTaskPushNotificationConfig({ tenant: '', taskId: parked.id, id: 'steady' })
    ).toMatchObject({
      token: 'tok-e2e-steady',
      authentication: { credentials: 'cred-e2e-steady' },
    });
  });
});
