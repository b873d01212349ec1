import { describe, expect, it } from 'vitest';
import { ALICE } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { textMessage } from '../../support/messages.js';
import { a2aSetup, type Outcome } from './a2a-calls.js';

/**
 * Every operation's params are checked against the A2A 1.0 request message before anything reads
 * them (§5.7), on both bindings: a refusal is -32602 / 400 INVALID_PARAMS, names the field in its
 * message and in a `google.rpc.BadRequest` detail, and stores nothing. What ProtoJSON allows is
 * accepted: proto (snake_case) names, `null` for an absent field, integers as strings, and fields
 * this server does not know (ignored, for forward compatibility).
 */

const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

const fieldsOf = (outcome: Outcome): string[] => {
  const details = (outcome.error?.data ?? outcome.error?.details ?? []) as Array<{
    '@type': string;
    fieldViolations?: Array<{ field: string }>;
  }>;
  return details
    .filter((detail) => detail['@type'] === BAD_REQUEST)
    .flatMap((detail) => (detail.fieldViolations ?? []).map((violation) => violation.field));
};

const user = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

describe('JSON-RPC params checked against the request message', () => {
  it.each([
    ['SendMessage', {}, 'message'],
    [
      'SendMessage',
      { message: user, configuration: { historyLength: -1 } },
      'configuration.historyLength',
    ],
    [
      'SendMessage',
      { message: user, configuration: { returnImmediately: 'yes' } },
      'configuration.returnImmediately',
    ],
    ['SendMessage', { message: { ...user, parts: [{ text: 'a', data: {} }] } }, 'message.parts[0]'],
    [
      'SendMessage',
      { message: { ...user, parts: [{ raw: 'not base64!' }] } },
      'message.parts[0].raw',
    ],
    ['SendMessage', { message: { ...user, metadata: [] } }, 'message.metadata'],
    ['SendMessage', { message: { ...user, referenceTaskIds: [1] } }, 'message.referenceTaskIds[0]'],
    ['SendMessage', { message: { ...user, messageId: '' } }, 'message.messageId'],
    ['SendStreamingMessage', { message: { ...user, role: 'ROLE_AGENT' } }, 'message.role'],
    ['GetTask', {}, 'id'],
    ['GetTask', { id: 5 }, 'id'],
    ['GetTask', { id: 't', historyLength: 'abc' }, 'historyLength'],
    ['GetTask', { id: 't', historyLength: 1.5 }, 'historyLength'],
    ['GetTask', { id: 't', historyLength: -1 }, 'historyLength'],
    ['CancelTask', { id: {} }, 'id'],
    ['SubscribeToTask', { id: 3 }, 'id'],
    ['ListTasks', { pageSize: 'ten' }, 'pageSize'],
    ['ListTasks', { status: 'TASK_STATE_SLEEPING' }, 'status'],
    ['ListTasks', { status: 99 }, 'status'],
    ['ListTasks', { status: -1 }, 'status'],
    ['ListTasks', { includeArtifacts: 'yes' }, 'includeArtifacts'],
    ['ListTasks', { statusTimestampAfter: '2024' }, 'statusTimestampAfter'],
    ['CreateTaskPushNotificationConfig', { url: 'https://hooks.example.com' }, 'taskId'],
    ['CreateTaskPushNotificationConfig', { taskId: 't' }, 'url'],
    ['CreateTaskPushNotificationConfig', { taskId: 't', url: 5 }, 'url'],
    [
      'CreateTaskPushNotificationConfig',
      { taskId: 't', url: 'https://hooks.example.com', authentication: { credentials: 'c' } },
      'authentication.scheme',
    ],
    ['GetTaskPushNotificationConfig', { taskId: 't' }, 'id'],
    ['GetTaskPushNotificationConfig', { taskId: 't', id: 'not an id!' }, 'id'],
    ['DeleteTaskPushNotificationConfig', { taskId: 't', id: 'a/b' }, 'id'],
    ['ListTaskPushNotificationConfigs', { taskId: 't', pageToken: 'garbage!' }, 'pageToken'],
    ['ListTaskPushNotificationConfigs', { taskId: 't', pageToken: 'bm90IGFuIGlkIQ' }, 'pageToken'],
    ['DeleteTaskPushNotificationConfig', { id: 'c' }, 'taskId'],
    ['ListTaskPushNotificationConfigs', { taskId: 't', pageSize: 'x' }, 'pageSize'],
    ['GetExtendedAgentCard', { tenant: 7 }, 'tenant'],
    ['GetTask', 'text', 'params'],
    ['GetTask', [], 'params'],
  ])('%s %j is refused, naming %s', async (method, params, field) => {
    const { rpc, harness } = a2aSetup();
    const before = await harness.store.list({ participantId: ALICE });

    const outcome = await rpc(method, params);

    expect(outcome.error?.code).toBe(-32602);
    expect(outcome.error?.message).toContain(field);
    expect(fieldsOf(outcome)).toContain(field);
    expect(await harness.store.list({ participantId: ALICE })).toEqual(before);
  });

  it('reads ProtoJSON as a parser must: proto names, null as absent, integers as strings, unknown fields ignored', async () => {
    const { rpc, harness } = a2aSetup([{ text: 'Hello.' }]);

    const sent = await rpc('SendMessage', {
      message: {
        message_id: 'm-snake',
        role: 1,
        parts: [{ text: 'hi', media_type: 'text/plain', future_field: true }],
        context_id: null,
      },
      configuration: { return_immediately: true, history_length: '0' },
      futureField: { nested: 1 },
    });
    expect(sent.error).toBeUndefined();
    const taskId = (sent.result?.task as { id: string } | undefined)?.id ?? '';
    // The message was read under its proto names: taken in by its id, its text in the transcript.
    expect(await harness.store.inboxSeqOf(taskId, 'm-snake')).toBe(0);
    expect(
      (await harness.store.readHistory(taskId)).flatMap((entry) =>
        entry.kind === 'participant_message' ? [entry.text] : []
      )
    ).toEqual(['hi']);

    const got = await rpc('GetTask', { id: taskId, history_length: '2', tenant: null });
    expect(got.result).toMatchObject({ id: taskId });
    const refused = await rpc('GetTask', { id: taskId, history_length: 'two' });
    expect(fieldsOf(refused)).toEqual(['historyLength']);
  });

  it('refuses a field given under both of its names', async () => {
    const { rpc } = a2aSetup();
    const outcome = await rpc('GetTask', { id: 't', historyLength: 1, history_length: 2 });
    expect(outcome.error?.code).toBe(-32602);
    expect(fieldsOf(outcome)).toEqual(['historyLength']);
  });
});

describe('media types (§3.1.1, §9.1)', () => {
  it('refuses a JSON-RPC body that is not JSON by its Content-Type with -32005', async () => {
    const { rpc } = a2aSetup();
    const outcome = await rpc(
      'SendMessage',
      { message: user },
      { headers: { 'Content-Type': 'text/plain' } }
    );
    expect(outcome.error?.code).toBe(-32005);
  });

  it.each([
    ['JSON-RPC', 'rpc'],
    ['HTTP+JSON', 'rest'],
  ] as const)(
    'refuses over %s a message part of a media type the agent does not read, storing nothing',
    async (_, kind) => {
      const { rpc, rest, harness } = a2aSetup();
      const message = {
        ...user,
        parts: [{ text: 'hi' }, { raw: 'dGNr', mediaType: 'application/x-unsupported-tck-type' }],
      };

      const outcome =
        kind === 'rpc'
          ? await rpc('SendMessage', { message })
          : await rest('POST', '/message:send', { body: { message } });

      if (kind === 'rpc') expect(outcome.error?.code).toBe(-32005);
      else expect(outcome.status).toBe(400);
      expect(outcome.error?.message).toContain('message.parts[1].mediaType');
      expect(await harness.store.list({ participantId: ALICE })).toEqual([]);
    }
  );

  it('accepts the media types the card lists, with parameters', async () => {
    const { rpc } = a2aSetup([{ text: 'Hi.' }]);
    const outcome = await rpc('SendMessage', {
      message: { ...user, parts: [{ text: 'hi', mediaType: 'text/plain; charset=utf-8' }] },
      configuration: { returnImmediately: true },
    });
    expect(outcome.error).toBeUndefined();
  });
});

describe('HTTP+JSON requests checked against the request message', () => {
  it.each([
    ['POST', '/message:send', {}, undefined, 'message'],
    ['POST', '/message:send', { message: { ...user, parts: [] } }, undefined, 'message.parts'],
    [
      'POST',
      '/message:stream',
      { message: { ...user, role: 'ROLE_UNSPECIFIED' } },
      undefined,
      'message.role',
    ],
    ['GET', '/tasks', undefined, { status: 'SLEEPING' }, 'status'],
    ['GET', '/tasks', undefined, { statusTimestampAfter: 'March 7, 2020' }, 'statusTimestampAfter'],
    ['GET', '/tasks/t-1', undefined, { historyLength: '-1' }, 'historyLength'],
    ['POST', '/tasks/t-1:cancel', { metadata: 'x' }, undefined, 'metadata'],
    ['POST', '/tasks/t-1/pushNotificationConfigs', { url: '' }, undefined, 'url'],
    ['GET', '/tasks/t-1/pushNotificationConfigs', undefined, { pageSize: 'many' }, 'pageSize'],
    // A parameter that does not parse as its type is refused, the empty one included.
    ['GET', '/tasks/t-1', undefined, { historyLength: '' }, 'historyLength'],
    ['GET', '/tasks', undefined, { includeArtifacts: '' }, 'includeArtifacts'],
    ['GET', '/tasks', undefined, { includeArtifacts: '1' }, 'includeArtifacts'],
    ['GET', '/tasks', undefined, { pageSize: '' }, 'pageSize'],
    ['GET', '/tasks', undefined, { status: '' }, 'status'],
    ['GET', '/tasks', undefined, { status: '99' }, 'status'],
    ['GET', '/tasks/t-1/pushNotificationConfigs', undefined, { pageSize: '' }, 'pageSize'],
  ])('%s %s %j %j is refused with 400, naming %s', async (method, path, body, query, field) => {
    const { rest, harness } = a2aSetup();
    const before = await harness.store.list({ participantId: ALICE });

    const outcome = await rest(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(query === undefined ? {} : { query }),
    });

    expect(outcome.status).toBe(400);
    expect(outcome.error?.message).toContain(field);
    expect(fieldsOf(outcome)).toContain(field);
    expect(await harness.store.list({ participantId: ALICE })).toEqual(before);
  });

  it('refuses a query parameter given twice, naming it, rather than picking one', async () => {
    const { rawCall } = a2aSetup();
    const response = await rawCall({
      httpMethod: 'GET',
      path: '/tasks',
      headers: { 'A2A-Version': '1.0', ...authorizationFor(ALICE) },
      queryStringParameters: { pageSize: '5' },
      multiValueQueryStringParameters: { pageSize: ['1', '5'] },
    });
    expect(response.statusCode).toBe(400);
    const { error } = JSON.parse(response.body as string) as Required<Pick<Outcome, 'error'>>;
    expect(error.message).toContain('pageSize is given more than once');
    expect(fieldsOf({ status: 400, headers: {}, raw: '', error })).toEqual(['pageSize']);
  });

  it('refuses a body that names another task than the path', async () => {
    const { rest, harness } = a2aSetup([{ text: 'Hi.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const outcome = await rest('POST', `/tasks/${started.task.id}:cancel`, {
      body: { id: 'another-task' },
    });
    expect(outcome.status).toBe(400);
    expect(outcome.error?.message).toContain('id');
  });
});
