import { Role } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { bearerTokensFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';
import {
  type A2aClient,
  clientOf,
  FOUR_CLIENTS,
  failureOf,
  refusalOf,
  tagOf,
} from './a2a-clients.js';

/**
 * The A2A 1.0 requirements the conformance kit (a2aproject/a2a-tck) found us failing, one named
 * test each, through the local stack with the four clients: the SDK client over each transport,
 * and a raw fetch client over each binding. docs/a2a/conformance.md lists them.
 */

const CLIENTS = FOUR_CLIENTS;

type Written = Record<string, unknown>;

let counter = 0;
const id = () => `conformance-${Date.now()}-${++counter}`;

/**
 * Messages that are not valid (§4.1.4, §4.1.6, §5.7), each with the field the refusal must name.
 * `raw` is the JSON a raw client sends; `sdk` is what an SDK user writes (the SDK encodes it: a
 * natural `{ text }` part, with no `content`, goes out as `{}`; a role given as a string goes out
 * as "UNRECOGNIZED"; an object as `messageId` goes out as that object).
 */
const INVALID_MESSAGES: Array<{
  what: string;
  field: string;
  raw: Written;
  /** Absent where the SDK refuses to encode the message at all (it throws before sending). */
  sdk?: Written;
}> = [
  {
    what: 'no parts at all',
    field: 'message.parts',
    raw: { messageId: id(), role: 'ROLE_USER', parts: [] },
    sdk: { messageId: id(), role: Role.ROLE_USER, parts: [] },
  },
  {
    what: 'no parts field',
    field: 'message.parts',
    raw: { messageId: id(), role: 'ROLE_USER' },
    sdk: { messageId: id(), role: Role.ROLE_USER },
  },
  {
    what: 'an empty part (the natural { text } shape, through the SDK)',
    field: 'message.parts[0]',
    raw: { messageId: id(), role: 'ROLE_USER', parts: [{}] },
    sdk: { messageId: id(), role: Role.ROLE_USER, parts: [{ text: 'hello' }] },
  },
  {
    what: 'no role',
    field: 'message.role',
    raw: { messageId: id(), parts: [{ text: 'hello' }] },
    sdk: {
      messageId: id(),
      parts: [{ content: { $case: 'text', value: 'hello' } }],
    },
  },
  {
    what: 'ROLE_UNSPECIFIED',
    field: 'message.role',
    raw: { messageId: id(), role: 'ROLE_UNSPECIFIED', parts: [{ text: 'hello' }] },
    sdk: {
      messageId: id(),
      role: Role.ROLE_UNSPECIFIED,
      parts: [{ content: { $case: 'text', value: 'hello' } }],
    },
  },
  {
    what: 'an unknown role (BOGUS; through the SDK, a role written as a string)',
    field: 'message.role',
    raw: { messageId: id(), role: 'BOGUS', parts: [{ text: 'hello' }] },
    sdk: {
      messageId: id(),
      role: 'ROLE_USER',
      parts: [{ content: { $case: 'text', value: 'hello' } }],
    },
  },
  {
    what: 'ROLE_AGENT from a client',
    field: 'message.role',
    raw: { messageId: id(), role: 'ROLE_AGENT', parts: [{ text: 'hello' }] },
    sdk: {
      messageId: id(),
      role: Role.ROLE_AGENT,
      parts: [{ content: { $case: 'text', value: 'hello' } }],
    },
  },
  {
    what: 'a messageId that is an object',
    field: 'message.messageId',
    raw: { messageId: {}, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    sdk: {
      messageId: {},
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'hello' } }],
    },
  },
  {
    what: 'parts that are a string',
    field: 'message.parts',
    raw: { messageId: id(), role: 'ROLE_USER', parts: 'abc' },
  },
];

describe('A2A 1.0 conformance (the kit’s findings)', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  beforeAll(async () => {
    const ids = ['alice', 'bob'].flatMap((name) =>
      CLIENTS.map(({ kind, binding }) => `${name}-${tagOf(kind, binding)}`)
    );
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(ids),
        // Each client makes more calls than the local throttle's burst allows.
        TINY_HARNESS_THROTTLE_BURST: '1000',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('§4.4.5: the agent card declares the harness’s skill, as the SDK reads it', async () => {
    const card = await new DefaultAgentCardResolver().resolve(stack.url);
    expect(card.skills.map((skill) => skill.id)).toEqual(['tasks-and-plans']);
    const raw = (await (await fetch(`${stack.url}/.well-known/agent-card.json`)).json()) as {
      skills: Array<{ id: string; tags: string[]; description: string }>;
    };
    expect(raw.skills[0]).toMatchObject({ id: 'tasks-and-plans', tags: expect.any(Array) });
    expect(raw.skills[0]?.description).not.toBe('');
  });

  describe.each(CLIENTS)('through $label', ({ kind, binding }) => {
    const tag = tagOf(kind, binding);
    const clientFor = (participant: string): Promise<A2aClient> =>
      clientOf(stack.url, `${participant}-${tag}`, kind, binding);
    const tasksOf = (participant: string) =>
      stack.runtime.loop.store.list({ participantId: `${participant}-${tag}` });

    const invalid = INVALID_MESSAGES.filter((message) => kind === 'raw' || message.sdk);
    it.each(invalid)(
      '§5.7: SendMessage refuses a message with $what, naming $field, storing nothing',
      async ({ field, raw, sdk }) => {
        const alice = await clientFor('alice');
        const before = await tasksOf('alice');

        const refusal = await refusalOf(alice.sendAsWritten(kind === 'sdk' && sdk ? sdk : raw));

        expect(refusal.name).toBe('RequestMalformedError');
        expect(refusal.message).toContain(field);
        expect(await tasksOf('alice')).toEqual(before);
      }
    );

    it('§3.1.1: SendMessage refuses a part of a media type the agent does not read with ContentTypeNotSupported, storing nothing', async () => {
      const alice = await clientFor('alice');
      const before = await tasksOf('alice');
      const raw = {
        messageId: id(),
        role: 'ROLE_USER',
        parts: [{ raw: 'dGNr', mediaType: 'application/x-unsupported-tck-type' }],
      };
      const sdk = {
        messageId: id(),
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'raw', value: new TextEncoder().encode('tck') },
            mediaType: 'application/x-unsupported-tck-type',
            filename: '',
            metadata: undefined,
          },
        ],
      };

      const refusal = await refusalOf(alice.sendAsWritten(kind === 'sdk' ? sdk : raw));

      expect(refusal.name).toBe('ContentTypeNotSupportedError');
      expect(await tasksOf('alice')).toEqual(before);
    });

    it('§3.1.5: CancelTask refuses a task that is already canceled with TaskNotCancelable', async () => {
      model.push({ text: 'Waiting.' });
      const alice = await clientFor('alice');
      const task = await alice.send('cancel me twice');
      await alice.cancel(task.id);

      expect(await failureOf(alice.cancel(task.id))).toBe('TaskNotCancelableError');
    });

    it.each([
      '-1',
      '2024',
      '12',
      'March 7, 2020',
      '2026-03-07',
      '2026-02-30T00:00:00Z',
      '2026-03-07T12:00:00+02:00',
    ])(
      '§5.6.1: ListTasks refuses statusTimestampAfter %j (not an ISO 8601 UTC date-time)',
      async (value) => {
        const alice = await clientFor('alice');
        const refusal = await refusalOf(alice.listTasksWhere({ statusTimestampAfter: value }));
        expect(refusal.name).toBe('RequestMalformedError');
        expect(refusal.message).toContain('statusTimestampAfter');
      }
    );

    it('§3.1.4: ListTasks with no status filter lists every task (the SDK sends "UNRECOGNIZED"), and a status filter lists those in it', async () => {
      model.push({ text: 'Parked.' }, { text: 'Parked too.' });
      const bob = await clientFor('bob');
      const kept = await bob.send('keep me');
      const canceled = await bob.send('cancel me');
      await bob.cancel(canceled.id);
      const since = new Date(Date.now() - 60_000).toISOString();

      expect((await bob.listTasksWhere({})).sort()).toEqual([kept.id, canceled.id].sort());
      expect(await bob.listTasksWhere({ status: 'TASK_STATE_CANCELED' })).toEqual([canceled.id]);
      expect((await bob.listTasksWhere({ statusTimestampAfter: since })).length).toBe(2);
    });

    it('§3.2.4: SendMessage answers with the conversation so far unless historyLength says otherwise', async () => {
      model.push(
        { text: 'First answer.' },
        { text: 'Second answer.' },
        { text: 'Third.' },
        { text: 'Fourth.' }
      );
      const alice = await clientFor('alice');

      const first = await alice.send('first');
      const second = await alice.send('second', {
        taskId: first.id,
        contextId: first.contextId,
      });
      const third = await alice.send('third', {
        taskId: first.id,
        contextId: first.contextId,
        historyLength: 1,
      });

      expect(first.history.map((message) => message.text)).toEqual(['first', 'First answer.']);
      expect(second.history.map((message) => message.text)).toEqual([
        'first',
        'First answer.',
        'second',
        'Second answer.',
      ]);
      expect(third.history.map((message) => message.text)).toEqual(['Third.']);
      const none = await alice.send('fourth', {
        taskId: first.id,
        contextId: first.contextId,
        historyLength: 0,
      });
      expect(none.history).toEqual([]);
    });
  });
});
