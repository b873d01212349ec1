import type { Task } from '@a2a-js/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TASK_EXTENSION_URI, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { storedIdOf } from '../../../functions/service/push-configs.js';
import { ALICE, BOB, STATES, STRANGER } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';
import { BINDINGS, errorOf, type Outcome, setupFor, spelling } from './a2a-calls.js';

type TaskJson = {
  id: string;
  contextId: string;
  status: { state: string; timestamp: string };
  history?: Array<{ role: string; messageId: string; parts: unknown[]; metadata?: unknown }>;
  artifacts?: unknown[];
};

const tasksOf = (outcome: Outcome) => (outcome.result?.tasks ?? []) as TaskJson[];

/** A conversation of two exchanges, parked in INPUT_REQUIRED after the second reply. */
const conversation = async (setup: ReturnType<typeof setupFor>) => {
  const started = await setup.harness.start(textMessage('hi'), ALICE);
  await setup.harness.send(
    started.task.id,
    { ...textMessage('one more thing'), taskId: started.task.id },
    ALICE
  );
  return started.task;
};

describe.each(BINDINGS)('the A2A operations over %s', (binding) => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  describe('GetTask historyLength (§3.2.4)', () => {
    const replies = [
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: { steps: [{ name: 'Answer', description: 'say hello' }] },
          },
        ],
      },
      { text: 'Hello Alice.' },
      { text: 'Noted.' },
    ];

    it('answers with the whole conversation when historyLength is unset: participants as ROLE_USER with participant_id, the model as ROLE_AGENT, and no tool calls or results', async () => {
      const setup = setupFor(binding, replies);
      const task = await conversation(setup);

      const reply = await setup.calls.getTask(task.id);

      const history = (reply.result as TaskJson).history ?? [];
      expect(history.map((message) => [message.role, message.parts])).toEqual([
        ['ROLE_USER', [{ text: 'hi', mediaType: 'text/plain' }]],
        ['ROLE_AGENT', [{ text: 'Hello Alice.', mediaType: 'text/plain' }]],
        ['ROLE_USER', [{ text: 'one more thing', mediaType: 'text/plain' }]],
        ['ROLE_AGENT', [{ text: 'Noted.', mediaType: 'text/plain' }]],
      ]);
      expect(history[0]).toMatchObject({
        taskId: task.id,
        contextId: task.contextId,
        metadata: { participant_id: ALICE },
      });
      expect(new Set(history.map((message) => message.messageId)).size).toBe(4);
      // The stored task keeps no history of its own: the transcript is many small items.
      expect((await setup.harness.task(task.id)).task.history).toEqual([]);
    });

    it('leaves the history out for historyLength 0 and keeps only the N most recent messages for N', async () => {
      const setup = setupFor(binding, replies);
      const task = await conversation(setup);

      const none = await setup.calls.getTask(task.id, 0);
      const last = await setup.calls.getTask(task.id, 1);
      const lastTwo = await setup.calls.getTask(task.id, 2);

      expect((none.result as TaskJson).history).toBeUndefined();
      expect((last.result as TaskJson).history?.map((message) => message.parts)).toEqual([
        [{ text: 'Noted.', mediaType: 'text/plain' }],
      ]);
      expect((lastTwo.result as TaskJson).history?.map((message) => message.role)).toEqual([
        'ROLE_USER',
        'ROLE_AGENT',
      ]);
    });

    it('refuses a negative historyLength as invalid params', async () => {
      const setup = setupFor(binding, replies);
      const task = await conversation(setup);
      const reply = await setup.calls.getTask(task.id, -1);
      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'InvalidParams'));
    });
  });

  describe('ListTasks (§3.1.4), scoped to the caller (§13.1)', () => {
    /** Alice's three tasks and Bob's one, each parked after one reply. */
    const fourTasks = async () => {
      const setup = setupFor(binding, [
        { text: 'one' },
        { text: 'two' },
        { text: 'three' },
        { text: 'bob' },
      ]);
      const alice: Task[] = [];
      for (const text of ['first', 'second', 'third']) {
        alice.push((await setup.harness.start(textMessage(text), ALICE)).task);
      }
      const bob = (await setup.harness.start(textMessage('mine'), BOB)).task;
      return { setup, alice, bob };
    };

    it('lists only the tasks the caller is a participant of, newest status first, with the sizes and an empty nextPageToken on the last page', async () => {
      const { setup, alice, bob } = await fourTasks();

      const mine = await setup.calls.listTasks({}, { as: ALICE });
      const bobs = await setup.calls.listTasks({}, { as: BOB });
      const strangers = await setup.calls.listTasks({}, { as: STRANGER });

      expect(tasksOf(mine).map((task) => task.id)).toEqual(alice.map((task) => task.id).reverse());
      expect(mine.result).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 3 });
      expect(tasksOf(bobs).map((task) => task.id)).toEqual([bob.id]);
      expect(strangers.result).toEqual({
        tasks: [],
        nextPageToken: '',
        pageSize: 50,
        totalSize: 0,
      });
    });

    it('walks every page with pageSize 1, each token leading to the next task, the last page ending with ""', async () => {
      const { setup, alice } = await fourTasks();
      const seen: string[] = [];
      let pageToken = '';
      for (let page = 0; page < 10; page++) {
        const reply = await setup.calls.listTasks(
          pageToken === '' ? { pageSize: 1 } : { pageSize: 1, pageToken },
          { as: ALICE }
        );
        expect(tasksOf(reply)).toHaveLength(1);
        expect(reply.result).toHaveProperty('nextPageToken');
        seen.push(...tasksOf(reply).map((task) => task.id));
        pageToken = reply.result?.nextPageToken as string;
        if (pageToken === '') break;
      }
      expect(seen).toEqual(alice.map((task) => task.id).reverse());
    });

    it('filters by contextId and by status', async () => {
      const { setup, alice } = await fourTasks();
      const [first, second] = alice as [Task, Task];
      await setup.harness.cancel(second.id, ALICE);

      const inContext = await setup.calls.listTasks({ contextId: first.contextId });
      const canceled = await setup.calls.listTasks({ status: 'TASK_STATE_CANCELED' });

      expect(tasksOf(inContext).map((task) => task.id)).toEqual([first.id]);
      expect(tasksOf(canceled).map((task) => [task.id, task.status.state])).toEqual([
        [second.id, STATES.CANCELED],
      ]);
    });

    it('carries no history unless historyLength asks for it, and artifacts only with includeArtifacts', async () => {
      const { setup } = await fourTasks();

      const plain = tasksOf(await setup.calls.listTasks({ pageSize: 1 }));
      const detailed = tasksOf(
        await setup.calls.listTasks({ pageSize: 1, historyLength: 1, includeArtifacts: true })
      );

      expect(plain[0]?.history).toBeUndefined();
      expect(plain[0]).not.toHaveProperty('artifacts');
      expect(detailed[0]?.history?.map((message) => message.parts)).toEqual([
        [{ text: 'three', mediaType: 'text/plain' }],
      ]);
      expect(detailed[0]?.artifacts).toEqual([]);
    });

    it.each([
      ['pageSize 0', { pageSize: 0 }],
      ['pageSize 101', { pageSize: 101 }],
      ['a page token it never issued', { pageToken: 'not-a-token' }],
      ['an unknown status', { status: 'TASK_STATE_SLEEPING' }],
      ['a negative historyLength', { historyLength: -2 }],
      ['a statusTimestampAfter that is no timestamp', { statusTimestampAfter: 'yesterday' }],
    ])('refuses %s as invalid params', async (_, query) => {
      const { setup } = await fourTasks();
      const reply = await setup.calls.listTasks(query);
      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'InvalidParams'));
    });
  });

  describe('CancelTask (§3.1.5)', () => {
    it('refuses to cancel an already-canceled task with TaskNotCancelable, and stops nothing again', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const started = await setup.harness.start(textMessage('hi'), ALICE);

      const first = await setup.calls.cancel(started.task.id);
      const calls = setup.executions.calls.length;
      const events = await setup.harness.deps.events.lastSeq(started.task.id);
      const second = await setup.calls.cancel(started.task.id);

      expect(first.result).toMatchObject({ status: { state: STATES.CANCELED } });
      expect(errorOf(binding, second)).toEqual(spelling(binding, 'TaskNotCancelable'));
      expect(setup.executions.calls.length).toBe(calls);
      expect(await setup.harness.deps.events.lastSeq(started.task.id)).toBe(events);
    });

    it('answers a non-participant with TaskNotFound', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const started = await setup.harness.start(textMessage('hi'), ALICE);
      const reply = await setup.calls.cancel(started.task.id, { as: STRANGER });
      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'TaskNotFound'));
    });
  });

  describe('history message ids', () => {
    it('gives a participant’s message in the history the messageId it was sent with', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const sent = textMessage('hi');
      const started = await setup.harness.start(sent, ALICE);

      const reply = await setup.calls.getTask(started.task.id);

      const history = (reply.result as TaskJson).history ?? [];
      expect(history.map((message) => [message.role, message.messageId])).toEqual([
        ['ROLE_USER', sent.messageId],
        ['ROLE_AGENT', expect.stringContaining(':history:')],
      ]);
    });
  });

  describe('secrets in a task envelope (issue 9, item 6)', () => {
    it('masks them in the stored name, goal, description and acceptance criteria, as in text', async () => {
      const setup = setupFor(binding);
      const key = 'AKIAIOSFODNN7EXAMPLE';

      const sent = await setup.calls.send(
        envelopeMessage('task', {
          name: `Rotate ${key}`,
          goal: `Retire ${key}`,
          description: `The old one was ${key}`,
          acceptance_criteria: [{ text: `${key} is revoked` }],
        })
      );
      const taskId = (sent.result?.task as { id: string } | undefined)?.id ?? '';
      const stored = await setup.harness.store.get(taskId);

      expect(JSON.stringify(stored)).not.toContain(key);
      expect(stored?.task.metadata?.[TASK_METADATA_KEY]).toMatchObject({
        name: 'Rotate [redacted]',
        goal: 'Retire [redacted]',
        description: 'The old one was [redacted]',
        acceptance_criteria: [{ text: '[redacted] is revoked' }],
      });
    });
  });

  describe('SendMessage to an existing task (§3.1.1, §3.4)', () => {
    it('refuses a message to a task in a terminal state with UnsupportedOperation, queuing nothing', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const started = await setup.harness.start(textMessage('hi'), ALICE);
      await setup.harness.cancel(started.task.id, ALICE);
      const inbox = await setup.harness.store.readInbox(started.task.id);

      const reply = await setup.calls.send({ ...textMessage('again'), taskId: started.task.id });

      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'UnsupportedOperation'));
      expect(await setup.harness.store.readInbox(started.task.id)).toEqual(inbox);
    });

    it('refuses a contextId that is not the task’s with invalid params', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const started = await setup.harness.start(textMessage('hi'), ALICE);
      const reply = await setup.calls.send({
        ...textMessage('again', { contextId: 'another-context' }),
        taskId: started.task.id,
      });
      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'InvalidParams'));
    });

    it('answers with the whole history by default, as GetTask does, and with what configuration.historyLength asks for (§3.2.4)', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const started = await setup.harness.start(textMessage('hi'), ALICE);
      const follow = () => ({ ...textMessage('more'), taskId: started.task.id });

      const plain = await setup.calls.send(follow());
      const withOne = await setup.calls.send(follow(), {
        configuration: { returnImmediately: true, historyLength: 1 },
      });
      const withNone = await setup.calls.send(follow(), {
        configuration: { returnImmediately: true, historyLength: 0 },
      });

      const texts = (outcome: Outcome) =>
        ((outcome.result?.task?.history ?? []) as Array<{ parts: Array<{ text: string }> }>).map(
          (message) => message.parts[0]?.text
        );
      // The first follow-up woke the parked task, whose claim put it in the transcript at once;
      // the others wait in the inbox of the task it left working.
      expect(texts(plain)).toEqual(['hi', 'Hello Alice.', 'more']);
      expect(texts(withOne)).toEqual(['more']);
      expect(withNone.result?.task).not.toHaveProperty('history');
    });
  });

  describe('push-notification configs (§3.1.7–3.1.10)', () => {
    const parked = async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);
      const task = (await setup.harness.start(textMessage('hi'), ALICE)).task;
      return { setup, task };
    };

    it('stores an inline config of SendMessage (configuration.taskPushNotificationConfig) for the new task, as its sender’s, sealed', async () => {
      const setup = setupFor(binding, [{ text: 'Hello Alice.' }]);

      const sent = await setup.calls.send(textMessage('hi'), {
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: {
            id: 'inline',
            url: 'https://hooks.example.com/inline',
            token: 'inline-token',
          },
        },
      });
      const taskId = (sent.result?.task as { id: string } | undefined)?.id ?? '';

      const [stored] = await setup.pushConfigs.list(taskId);
      expect(stored).toMatchObject({ id: storedIdOf(ALICE, 'inline'), ownerId: ALICE, taskId });
      expect(JSON.stringify(stored)).not.toContain('inline-token');
      expect((await setup.calls.getPush(taskId, 'inline')).result).toMatchObject({
        url: 'https://hooks.example.com/inline',
        token: 'inline-token',
      });
    });

    it('refuses a message whose inline config is not allowed with InvalidParams, creating neither the task nor the config', async () => {
      const setup = setupFor(binding);

      const refused = await setup.calls.send(textMessage('hi'), {
        configuration: {
          taskPushNotificationConfig: { url: 'https://10.0.0.1/hook', token: 't' },
        },
      });
      const toExisting = await parked();
      const refusedOnTask = await toExisting.setup.calls.send(
        { ...textMessage('more'), taskId: toExisting.task.id },
        { configuration: { taskPushNotificationConfig: { url: 'http://example.com/' } } }
      );

      expect(errorOf(binding, refused)).toEqual(spelling(binding, 'InvalidParams'));
      expect(await setup.harness.store.list({})).toEqual([]);
      expect(errorOf(binding, refusedOnTask)).toEqual(spelling(binding, 'InvalidParams'));
      expect(await toExisting.setup.pushConfigs.list(toExisting.task.id)).toEqual([]);
      // The refused message queued nothing (the task's first message was read already).
      expect(await toExisting.setup.harness.store.readInbox(toExisting.task.id)).toEqual([]);
    });

    it('creates, gets, lists and deletes a config; delete is idempotent and a deleted config is not found', async () => {
      const { setup, task } = await parked();

      const created = await setup.calls.createPush(task.id, {
        id: 'hook-1',
        url: 'https://hooks.example.com/a2a',
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      });
      const generated = await setup.calls.createPush(task.id, {
        url: 'https://hooks.example.com/other',
      });
      const fetched = await setup.calls.getPush(task.id, 'hook-1');
      const listed = await setup.calls.listPush(task.id);
      const deleted = await setup.calls.deletePush(task.id, 'hook-1');
      const deletedAgain = await setup.calls.deletePush(task.id, 'hook-1');
      const gone = await setup.calls.getPush(task.id, 'hook-1');

      const expected = {
        id: 'hook-1',
        taskId: task.id,
        url: 'https://hooks.example.com/a2a',
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      };
      expect(created.result).toEqual(expected);
      expect(created.status).toBe(binding === 'HTTP+JSON' ? 201 : 200);
      expect(generated.result?.id).toEqual(expect.any(String));
      expect(fetched.result).toEqual(expected);
      expect(listed.result).toEqual({
        configs: expect.arrayContaining([expected, generated.result]),
        nextPageToken: '',
      });
      expect(deleted.error).toBeUndefined();
      expect(deletedAgain.error).toBeUndefined();
      expect(errorOf(binding, gone)).toEqual(spelling(binding, 'TaskNotFound'));
      expect(await setup.pushConfigs.list(task.id)).toEqual([
        expect.objectContaining({ id: storedIdOf(ALICE, String(generated.result?.id)) }),
      ]);
    });

    it('replaces a config created again under the same id', async () => {
      const { setup, task } = await parked();
      await setup.calls.createPush(task.id, { id: 'hook', url: 'https://a.example.com/' });
      await setup.calls.createPush(task.id, { id: 'hook', url: 'https://b.example.com/' });
      expect(await setup.pushConfigs.list(task.id)).toEqual([
        expect.objectContaining({ id: storedIdOf(ALICE, 'hook'), url: 'https://b.example.com/' }),
      ]);
    });

    it.each([
      ['a private range', 'https://10.0.0.5/hook'],
      ['another private range', 'https://192.168.1.20/hook'],
      ['the link-local metadata address', 'https://169.254.169.254/latest/meta-data'],
      ['a unique-local IPv6 address', 'https://[fd00::1]/hook'],
      ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/hook'],
      ['IPv4-compatible loopback', 'https://[::127.0.0.1]/hook'],
      ['IPv4-translated loopback', 'https://[::ffff:0:7f00:1]/hook'],
      ['6to4 of loopback', 'https://[2002:7f00:1::1]/hook'],
      ['NAT64 local-use of a private address', 'https://[64:ff9b:1::a00:1]/hook'],
      ['NAT64 well-known of the metadata address', 'https://[64:ff9b::a9fe:a9fe]/'],
      ['Teredo of loopback', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
      ['ISATAP of a private address', 'https://[2001:db9::5efe:10.0.0.1]/'],
      ['loopback (not allowed by default)', 'https://127.0.0.1/hook'],
      ['localhost', 'https://localhost/hook'],
      ['plain http to a public host', 'http://hooks.example.com/a2a'],
      ['a URL carrying credentials', 'https://user:pass@hooks.example.com/a2a'],
      ['something that is no URL', 'hooks.example.com/a2a'],
    ])(
      'refuses a webhook URL to %s with invalid params, storing nothing (§13.2)',
      async (_, url) => {
        const { setup, task } = await parked();
        const reply = await setup.calls.createPush(task.id, { url });
        expect(errorOf(binding, reply)).toEqual(spelling(binding, 'InvalidParams'));
        expect(await setup.pushConfigs.list(task.id)).toEqual([]);
      }
    );

    it('accepts http to loopback only when TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS is true', async () => {
      const { setup, task } = await parked();
      const url = 'http://127.0.0.1:8099/hook';
      expect(errorOf(binding, await setup.calls.createPush(task.id, { url }))).toEqual(
        spelling(binding, 'InvalidParams')
      );

      // As TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS=true would configure it.
      setup.runtime.webhookPolicy.allowLoopback = true;
      const allowed = await setup.calls.createPush(task.id, { url });

      expect(allowed.result).toMatchObject({ url });
      const stillPrivate = await setup.calls.createPush(task.id, { url: 'http://10.0.0.5/hook' });
      expect(errorOf(binding, stillPrivate)).toEqual(spelling(binding, 'InvalidParams'));
    });

    it('answers every config operation on someone else’s task with TaskNotFound', async () => {
      const { setup, task } = await parked();
      await setup.calls.createPush(task.id, { id: 'hook', url: 'https://a.example.com/' });
      const as = { as: STRANGER };

      const replies = [
        await setup.calls.createPush(task.id, { url: 'https://evil.example.com/' }, as),
        await setup.calls.getPush(task.id, 'hook', as),
        await setup.calls.listPush(task.id, as),
        await setup.calls.deletePush(task.id, 'hook', as),
      ];

      for (const reply of replies) {
        expect(errorOf(binding, reply)).toEqual(spelling(binding, 'TaskNotFound'));
      }
      expect(await setup.pushConfigs.list(task.id)).toHaveLength(1);
    });

    it('keeps a config its creator’s: another participant of the task neither lists, reads, replaces nor deletes it, and the same id is a fresh one of their own', async () => {
      const setup = setupFor(binding);
      const team = await setup.harness.start(
        envelopeMessage('task', {
          name: 'Team task',
          goal: 'g',
          participants: [
            { id: ALICE, kind: 'human', role: 'admin' },
            { id: BOB, kind: 'human', role: 'watcher' },
          ],
        }),
        ALICE
      );
      const taskId = team.task.id;
      const bob = { as: BOB };
      await setup.calls.createPush(taskId, { id: 'hook', url: 'https://alice.example.com/' });

      const listedByBob = await setup.calls.listPush(taskId, bob);
      const readByBob = await setup.calls.getPush(taskId, 'hook', bob);
      await setup.calls.deletePush(taskId, 'hook', bob);
      // As for any id Bob has not used: created, his own (nothing says Alice has one).
      const createdByBob = await setup.calls.createPush(
        taskId,
        { id: 'hook', url: 'https://bob.example.com/' },
        bob
      );
      const readByBobAfter = await setup.calls.getPush(taskId, 'hook', bob);
      await setup.calls.deletePush(taskId, 'hook', bob);
      const listedByAlice = await setup.calls.listPush(taskId);

      expect(listedByBob.result).toEqual({ configs: [], nextPageToken: '' });
      expect(errorOf(binding, readByBob)).toEqual(spelling(binding, 'TaskNotFound'));
      expect(createdByBob.error).toBeUndefined();
      expect(createdByBob.result).toMatchObject({ id: 'hook', url: 'https://bob.example.com/' });
      expect(readByBobAfter.result).toMatchObject({ id: 'hook', url: 'https://bob.example.com/' });
      expect(listedByAlice.result).toEqual({
        configs: [expect.objectContaining({ id: 'hook', url: 'https://alice.example.com/' })],
        nextPageToken: '',
      });
      expect((await setup.pushConfigs.list(taskId)).map((config) => config.ownerId)).toEqual([
        ALICE,
      ]);
    });

    it('refuses more than ten configs of one participant on one task', async () => {
      const { setup, task } = await parked();
      for (let index = 0; index < 10; index++) {
        const reply = await setup.calls.createPush(task.id, {
          id: `hook-${index}`,
          url: 'https://a.example.com/',
        });
        expect(reply.error).toBeUndefined();
      }
      const eleventh = await setup.calls.createPush(task.id, { url: 'https://a.example.com/' });
      expect(errorOf(binding, eleventh)).toEqual(spelling(binding, 'InvalidParams'));
    });
  });

  describe('A2A-Extensions (§3.2.6)', () => {
    it('refuses a request naming an extension the card does not advertise, before a task is created', async () => {
      const setup = setupFor(binding);

      const reply = await setup.calls.send(textMessage('hello'), {
        headers: { 'A2A-Extensions': `${TASK_EXTENSION_URI}, https://example.com/ext/unknown/v1` },
      });

      expect(errorOf(binding, reply)).toEqual(spelling(binding, 'UnsupportedOperation'));
      expect(reply.error?.message).toContain('https://example.com/ext/unknown/v1');
      expect(await setup.harness.store.list({})).toEqual([]);
      expect(setup.executions.calls).toEqual([]);
    });

    it('echoes an advertised extension the request activates in the A2A-Extensions response header', async () => {
      const setup = setupFor(binding);

      const reply = await setup.calls.send(textMessage('hello'), {
        headers: { 'A2A-Extensions': TASK_EXTENSION_URI },
      });
      const plain = await setup.calls.send(textMessage('hello again'));

      expect(reply.error).toBeUndefined();
      expect(reply.headers['A2A-Extensions']).toBe(TASK_EXTENSION_URI);
      expect(plain.headers).not.toHaveProperty('A2A-Extensions');
    });
  });
});
