import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_EXTENSION_URI } from '../../functions/core/a2a/identifiers.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { bearerTokensFor } from '../support/identity.js';
import { eventually, startStack } from '../support/local-stack.js';
import { startWebhooks } from '../support/webhooks.js';
import {
  type A2aClient,
  clientOf,
  type EventView,
  FOUR_CLIENTS,
  failureOf,
  opened,
  rest,
  tagOf,
} from './a2a-clients.js';

const shapes = (events: EventView[]) =>
  events.map((event) => `${event.kind}:${event.state.replace('TASK_STATE_', '')}`);

/**
 * Both A2A bindings through the local stack (DynamoDB Local, the state machine, the HTTP shim),
 * each driven by the real SDK client and by a raw fetch client of our own: the same behaviours,
 * four ways. Participants are per client, so the four runs never see each other's tasks.
 */

const CLIENTS = FOUR_CLIENTS;

describe('the A2A bindings end to end', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  let webhooks: Awaited<ReturnType<typeof startWebhooks>>;

  beforeAll(async () => {
    webhooks = await startWebhooks({});
    // Every participant of every client below has its own bearer token.
    const names = [
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
      'frank',
      'grace',
      'heidi',
      'ivan',
      'judy',
      'kim',
      'leo',
      'nick',
      'olga',
      'paul',
      'quinn',
      'mallory',
    ];
    const tags = CLIENTS.map(({ kind, binding }) => tagOf(kind, binding));
    const ids = names.flatMap((name) => tags.map((tag) => `${name}-${tag}`));
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(ids),
        // The test's webhook listens on loopback, which only this switch allows.
        TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await webhooks?.close();
  });

  describe.each(CLIENTS)('through $label', ({ kind, binding }) => {
    const tag = tagOf(kind, binding);
    const clientFor = (participant: string): Promise<A2aClient> =>
      clientOf(stack.url, `${participant}-${tag}`, kind, binding);
    const tasksOf = (participant: string) =>
      stack.runtime.loop.store.list({ participantId: `${participant}-${tag}` });

    it('parks a new task in INPUT_REQUIRED, and GetTask gives all, none or the last of its history for historyLength unset, 0 and 1 (§3.2.4)', async () => {
      model.push({ text: 'Hello there.' });
      const alice = await clientFor('alice');

      const parked = await alice.send('hi');
      expect(parked.state).toBe('TASK_STATE_INPUT_REQUIRED');

      const whole = await alice.getTask(parked.id);
      const none = await alice.getTask(parked.id, 0);
      const last = await alice.getTask(parked.id, 1);

      expect(whole.history).toEqual([
        { role: 'ROLE_USER', text: 'hi', participantId: `alice-${tag}` },
        { role: 'ROLE_AGENT', text: 'Hello there.' },
      ]);
      expect(none.history).toEqual([]);
      expect(last.history).toEqual([{ role: 'ROLE_AGENT', text: 'Hello there.' }]);
    });

    it('lists only the caller’s tasks (§3.1.4, §13.1): another participant sees none, and pageSize 1 walks every page to a last one with an empty token', async () => {
      model.push({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' });
      const carol = await clientFor('carol');
      const dave = await clientFor('dave');
      const created = [];
      for (const text of ['first', 'second', 'third']) created.push((await carol.send(text)).id);

      const seen: string[] = [];
      let pageToken = '';
      for (let page = 0; page < 5; page++) {
        const listed = await carol.listTasks({ pageSize: 1, pageToken });
        expect(listed.ids).toHaveLength(1);
        expect(listed.totalSize).toBe(3);
        seen.push(...listed.ids);
        pageToken = listed.nextPageToken;
        if (pageToken === '') break;
      }
      const others = await dave.listTasks({});

      expect(seen).toEqual([...created].reverse());
      expect(others).toEqual({ ids: [], nextPageToken: '', totalSize: 0 });
    });

    it('cancels a task, refuses to cancel it again with TaskNotCancelable (§3.1.5), and refuses a message to it with UnsupportedOperation (§3.1.1)', async () => {
      model.push({ text: 'Waiting.' });
      const erin = await clientFor('erin');
      const parked = await erin.send('hi');

      const canceled = await erin.cancel(parked.id);

      expect(canceled.state).toBe('TASK_STATE_CANCELED');
      expect(await failureOf(erin.cancel(parked.id))).toBe('TaskNotCancelableError');
      expect((await erin.getTask(parked.id)).state).toBe('TASK_STATE_CANCELED');
      expect(
        await failureOf(
          erin.send('are you there?', { taskId: parked.id, contextId: parked.contextId })
        )
      ).toBe('UnsupportedOperationError');
    });

    it('creates, gets, lists and deletes a push-notification config, and deletes idempotently (§3.1.7–3.1.10)', async () => {
      model.push({ text: 'Parked.' });
      const frank = await clientFor('frank');
      const task = await frank.send('hi');

      const created = await frank.createPush(task.id, {
        id: 'hook-1',
        url: 'https://hooks.example.com/a2a',
        token: 'tok-1',
      });
      const fetched = await frank.getPush(task.id, 'hook-1');
      const listed = await frank.listPush(task.id);
      await frank.deletePush(task.id, 'hook-1');
      await frank.deletePush(task.id, 'hook-1');

      const expected = {
        id: 'hook-1',
        taskId: task.id,
        url: 'https://hooks.example.com/a2a',
        token: 'tok-1',
      };
      expect(created).toEqual(expected);
      expect(fetched).toEqual(expected);
      expect(listed).toEqual([expected]);
      expect(await frank.listPush(task.id)).toEqual([]);
      expect(await failureOf(frank.getPush(task.id, 'hook-1'))).toBe('TaskNotFoundError');
      expect(await stack.runtime.pushConfigs.list(task.id)).toEqual([]);
    });

    it('refuses a webhook URL in a private range as malformed, storing nothing (§13.2)', async () => {
      model.push({ text: 'Parked.' });
      const grace = await clientFor('grace');
      const task = await grace.send('hi');

      for (const url of ['https://10.1.2.3/hook', 'https://169.254.169.254/latest']) {
        expect(await failureOf(grace.createPush(task.id, { url }))).toBe('RequestMalformedError');
      }
      expect(await stack.runtime.pushConfigs.list(task.id)).toEqual([]);
    });

    it('refuses a request naming an extension the card does not advertise with UnsupportedOperation, creating no task (§3.2.6)', async () => {
      const heidi = await clientFor('heidi');

      const failure = await failureOf(
        heidi.send('hi', { extensions: ['https://example.com/a2a/ext/not-ours/v1'] })
      );

      expect(failure).toBe('UnsupportedOperationError');
      expect(await tasksOf('heidi')).toEqual([]);
    });

    it('echoes an advertised extension the request activates in the A2A-Extensions response header (§3.2.6)', async () => {
      model.push({ text: 'With the extension.' });
      const ivan = await clientFor('ivan');

      const task = await ivan.send('hi', { extensions: [TASK_EXTENSION_URI] });

      expect(task.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(ivan.lastExtensionsHeader()).toBe(TASK_EXTENSION_URI);
      await ivan.getTask(task.id);
      expect(ivan.lastExtensionsHeader()).toBeNull();
    });

    it('SendStreamingMessage streams the new Task first, then its status updates, and ends when the task pauses for input (§3.1.2, §11.7)', async () => {
      model.push({ text: 'Streaming hello.' });
      const judy = await clientFor('judy');

      const events = await rest(judy.stream('hi'));

      // The creation took the message in: the task is WORKING from its first write.
      expect(shapes(events)).toEqual(['task:WORKING', 'statusUpdate:INPUT_REQUIRED']);
      expect(events.at(-1)?.text).toBe('Streaming hello.');
      expect(new Set(events.map((event) => event.taskId)).size).toBe(1);
      if (kind === 'raw') {
        const ids = events.map((event) => Number(event.id));
        expect(ids.slice(1)).toEqual([...ids.slice(1)].sort((a, b) => a - b));
      }
    });

    it('gives two concurrent SubscribeToTask streams the current Task first, then the same events in the same order, ending at the next pause (§3.1.6, §3.5.2)', async () => {
      model.push({ text: 'First answer.' }, { text: 'Second answer.' });
      const kim = await clientFor('kim');
      const task = await kim.send('hi');

      const one = kim.subscribe(task.id);
      const two = kim.subscribe(task.id);
      const firsts = [await opened(one), await opened(two)];
      await kim.send('and then?', { taskId: task.id, contextId: task.contextId });
      const [restOfOne, restOfTwo] = await Promise.all([rest(one), rest(two)]);

      for (const first of firsts) {
        expect(first).toMatchObject({
          kind: 'task',
          taskId: task.id,
          state: 'TASK_STATE_INPUT_REQUIRED',
        });
      }
      expect(restOfOne).toEqual(restOfTwo);
      // The log replayed from its start: the created task, its first turn, then the new one.
      expect(shapes(restOfOne)).toEqual([
        'task:SUBMITTED',
        'statusUpdate:WORKING',
        'statusUpdate:INPUT_REQUIRED',
        'statusUpdate:WORKING',
        'statusUpdate:INPUT_REQUIRED',
      ]);
      expect(restOfOne.at(-1)?.text).toBe('Second answer.');
    });

    it('ends a subscriber’s stream with CANCELED when the task is canceled, and refuses SubscribeToTask on the ended task with UnsupportedOperation (§3.1.6)', async () => {
      model.push({ text: 'Waiting.' });
      const leo = await clientFor('leo');
      const task = await leo.send('hi');

      const watching = leo.subscribe(task.id);
      await opened(watching);
      await leo.cancel(task.id);
      const events = await rest(watching);

      expect(shapes(events).at(-1)).toBe('statusUpdate:CANCELED');
      expect(await failureOf(rest(leo.subscribe(task.id)))).toBe('UnsupportedOperationError');
    });

    it('answers a non-participant as for a missing task on every task operation, and changes nothing (§13.1)', async () => {
      model.push({ text: 'Only for Nick.' });
      const nick = await clientFor('nick');
      const mallory = await clientFor('mallory');
      const task = await nick.send('hi');
      const before = await stack.runtime.loop.store.get(task.id);

      // Thunks: each call starts only when it is awaited, so no refusal goes unhandled meanwhile.
      const attempts = [
        () => mallory.getTask(task.id),
        () => mallory.cancel(task.id),
        () => mallory.send('let me in', { taskId: task.id, contextId: task.contextId }),
        () => rest(mallory.subscribe(task.id)),
        () => rest(mallory.subscribe('no-such-task')),
        () => mallory.createPush(task.id, { url: 'https://hooks.example.com/x' }),
        () => mallory.listPush(task.id),
      ];
      for (const attempt of attempts) expect(await failureOf(attempt())).toBe('TaskNotFoundError');
      expect(await mallory.listTasks({})).toEqual({ ids: [], nextPageToken: '', totalSize: 0 });
      expect(await stack.runtime.loop.store.get(task.id)).toEqual(before);
      expect(await stack.runtime.pushConfigs.list(task.id)).toEqual([]);
    });

    it('POSTs every event of a task to the webhook its SendMessage named inline, in log order, with the notification token (§3.1.7, §4.3)', async () => {
      model.push({ text: 'Pushed hello.' });
      const olga = await clientFor('olga');
      const path = `/inline-${tag}`;

      const task = await olga.send('hi', {
        pushConfig: { url: webhooks.url(path), token: `token-${tag}` },
      });
      const delivered = await eventually(async () => {
        const received = webhooks.received(path);
        return received.length >= 3 ? received : undefined;
      });

      const bodies = delivered.map((delivery) => JSON.parse(delivery.body));
      expect(
        bodies.map((body) => {
          const [kind] = Object.keys(body);
          return `${kind}:${body[kind ?? '']?.status?.state ?? ''}`;
        })
      ).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'statusUpdate:TASK_STATE_WORKING',
        'statusUpdate:TASK_STATE_INPUT_REQUIRED',
      ]);
      expect(bodies[0].task.id).toBe(task.id);
      for (const delivery of delivered) {
        expect(delivery.headers['content-type']).toBe('application/a2a+json');
        expect(delivery.headers['x-a2a-notification-token']).toBe(`token-${tag}`);
      }
    });

    it('lets every participant of a shared task read, follow and write to it, and no one else (§13.1)', async () => {
      model.push({ text: 'Hello both.' });
      const paul = await clientFor('paul');
      const quinn = await clientFor('quinn');
      const mallory = await clientFor('mallory');
      const shared = await paul.send('', {
        envelope: {
          kind: 'task',
          payload: {
            name: 'Shared',
            goal: 'talk together',
            participants: [
              { id: `paul-${tag}`, kind: 'human', role: 'admin' },
              { id: `quinn-${tag}`, kind: 'human', role: 'watcher' },
            ],
          },
        },
      });

      const following = quinn.subscribe(shared.id);
      await opened(following);
      const answered = await quinn.send('hi from quinn', {
        taskId: shared.id,
        contextId: shared.contextId,
      });
      const followed = await rest(following);

      expect(answered.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(followed.at(-1)).toMatchObject({
        state: 'TASK_STATE_INPUT_REQUIRED',
        text: 'Hello both.',
      });
      expect((await paul.getTask(shared.id)).history).toEqual([
        { role: 'ROLE_USER', text: 'hi from quinn', participantId: `quinn-${tag}` },
        { role: 'ROLE_AGENT', text: 'Hello both.' },
      ]);
      expect((await quinn.listTasks({})).ids).toEqual([shared.id]);
      expect(await failureOf(mallory.getTask(shared.id))).toBe('TaskNotFoundError');
    });
  });
});
