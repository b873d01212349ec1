import type { Message } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { EVENT_MEDIA_TYPE } from '../../../functions/core/a2a/identifiers.js';
import {
  AdminRequiredError,
  EnvelopeRefusedError,
  InvalidEnvelopeError,
  NotAParticipantError,
  ParticipantsRefusedError,
  RoleRequiredError,
  ServerControlledFieldError,
} from '../../../functions/core/errors.js';
import {
  applyTaskEnvelope,
  extensionFromEnvelope,
  extensionFromText,
  findEnvelope,
  messageText,
  parseControl,
} from '../../../functions/core/task/envelope.js';
import {
  MAX_PARTICIPANTS,
  type TaskExtension,
  TaskExtensionSchema,
} from '../../../functions/core/task/extension.schema.js';
import { deepFreeze } from '../../support/freeze.js';
import { envelopeMessage, rawEnvelopeMessage, textMessage } from '../../support/messages.js';

const AGENT = 'tiny-harness';
const settings = { sender: 'alice', agentId: AGENT };

/** A frozen task: alice reports, bob administers, carol watches, the agent is assigned. */
const currentTask = (): TaskExtension =>
  deepFreeze(
    TaskExtensionSchema.parse({
      name: 'Report',
      goal: 'Write the report',
      description: 'old description',
      participants: [
        { id: 'alice', kind: 'human', role: 'reporter' },
        { id: 'bob', kind: 'human', role: 'admin' },
        { id: 'carol', kind: 'human', role: 'watcher' },
        { id: AGENT, kind: 'agent', role: 'assignee' },
      ],
      plan: { steps: [{ id: 'a', name: 'A' }] },
      lifecycle: 'conversation',
      model: 'model-1',
      reasoning_effort: 'low',
    })
  );

/** Runs `fn`, expecting it to throw; returns the error for closer assertions. */
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

const withExtraPart = (message: Message, part: Message['parts'][number]): Message => ({
  ...message,
  parts: [...message.parts, part],
});

const dataPart = (mediaType: string, value: unknown): Message['parts'][number] => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType,
});

describe('findEnvelope', () => {
  it('finds none in a plain text message', () => {
    expect(findEnvelope(textMessage('hello'))).toBeUndefined();
  });

  it('ignores data parts of any other media type', () => {
    const message = withExtraPart(
      textMessage('hello'),
      dataPart('application/json', { kind: 'task' })
    );
    expect(findEnvelope(message)).toBeUndefined();
  });

  it('returns the one envelope a message carries, beside its text', () => {
    const message = envelopeMessage('control', { action: 'complete' }, { text: 'done, thanks' });
    expect(findEnvelope(message)).toEqual({ kind: 'control', payload: { action: 'complete' } });
  });

  it('refuses a message carrying two envelopes', () => {
    const message = withExtraPart(
      envelopeMessage('task', { name: 'x' }),
      dataPart(EVENT_MEDIA_TYPE, { kind: 'control', payload: { action: 'cancel' } })
    );
    const error = thrown(() => findEnvelope(message));
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect(error).toMatchObject({ code: 'envelope.invalid' });
  });

  it.each([
    ['no payload', { kind: 'task' }],
    ['an unknown kind', { kind: 'chat', payload: {} }],
    ['an unknown key', { kind: 'task', payload: {}, extra: true }],
    ['an array payload', { kind: 'task', payload: [] }],
    ['a non-object', 'task'],
    ['null', null],
  ])('refuses a malformed envelope: %s', (_label, value) => {
    const error = thrown(() => findEnvelope(rawEnvelopeMessage(value)));
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect(error).toMatchObject({ code: 'envelope.invalid' });
    expect((error as Error).message).toMatch(/^invalid event envelope: /);
  });
});

describe('messageText', () => {
  it('joins the text parts with newlines and skips the rest', () => {
    const message = withExtraPart(envelopeMessage('task', {}, { text: 'first' }), {
      content: { $case: 'text', value: 'second' },
      metadata: undefined,
      filename: '',
      mediaType: 'text/plain',
    });
    expect(messageText(message)).toBe('first\nsecond');
  });
});

describe('extensionFromText', () => {
  it('names the task after the first line and keeps the whole text as the goal', () => {
    const extension = extensionFromText('  Plan the offsite  \nwith budget and venue', settings);
    expect(extension.name).toBe('Plan the offsite');
    expect(extension.goal).toBe('Plan the offsite  \nwith budget and venue');
  });

  it('cuts the name at 60 characters', () => {
    const extension = extensionFromText('x'.repeat(100), settings);
    expect(extension.name).toBe('x'.repeat(60));
    expect(extension.goal).toBe('x'.repeat(100));
  });

  it('cuts an oversized goal to 1,000 characters, ending in an ellipsis', () => {
    const extension = extensionFromText('y'.repeat(1_500), settings);
    expect(extension.goal).toHaveLength(1_000);
    expect(extension.goal).toBe(`${'y'.repeat(999)}…`);
    expect(extensionFromText('z'.repeat(1_000), settings).goal).toBe('z'.repeat(1_000));
  });

  it('falls back to "task" for an empty text', () => {
    expect(extensionFromText('   ', settings)).toMatchObject({ name: 'task', goal: 'task' });
  });

  it('makes the sender the reporter and the agent the assignee', () => {
    expect(extensionFromText('hi', settings).participants).toEqual([
      { id: 'alice', kind: 'human', role: 'reporter', display_name: '' },
      { id: AGENT, kind: 'agent', role: 'assignee', display_name: '' },
    ]);
  });

  it('fills every other field with its default and sets no server-controlled field', () => {
    const extension = extensionFromText('hi', settings);
    expect(extension).toMatchObject({
      type: null,
      description: '',
      acceptance_criteria: [],
      parent_tasks: [],
      sub_tasks: [],
      plan: null,
    });
    expect(extension).not.toHaveProperty('lifecycle');
    expect(extension).not.toHaveProperty('model');
    expect(extension).not.toHaveProperty('reasoning_effort');
  });
});

describe('extensionFromEnvelope', () => {
  it('refuses an unknown top-level key as an invalid envelope', () => {
    const error = thrown(() =>
      extensionFromEnvelope({ name: 'n', goal: 'g', priority: 'high' }, settings)
    );
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect(error).toMatchObject({ code: 'envelope.invalid' });
    expect((error as Error).message).toMatch(/^invalid task extension: 1 error\(s\)/);
  });

  it('refuses a payload without the required goal', () => {
    expect(() => extensionFromEnvelope({ name: 'n' }, settings)).toThrow(InvalidEnvelopeError);
  });

  it.each(['lifecycle', 'model', 'reasoning_effort'] as const)(
    'refuses a new task that sets the server-controlled %s',
    (key) => {
      const value = { lifecycle: 'delegated', model: 'm', reasoning_effort: 'high' }[key];
      const error = thrown(() =>
        extensionFromEnvelope({ name: 'n', goal: 'g', [key]: value }, settings)
      );
      expect(error).toBeInstanceOf(ServerControlledFieldError);
      expect(error).toMatchObject({ code: 'envelope.server_controlled', keys: [key] });
    }
  );

  it('adds the sender as reporter, first, and the agent as assignee, when the payload names neither', () => {
    const extension = extensionFromEnvelope(
      { name: 'n', goal: 'g', participants: [{ id: 'dave', kind: 'human', role: 'watcher' }] },
      settings
    );
    expect(extension.participants).toEqual([
      { id: 'alice', kind: 'human', role: 'reporter', display_name: '' },
      { id: 'dave', kind: 'human', role: 'watcher', display_name: '' },
      { id: AGENT, kind: 'agent', role: 'assignee', display_name: '' },
    ]);
  });

  it('keeps the reporter or admin role the payload gives the sender', () => {
    const extension = extensionFromEnvelope(
      { name: 'n', goal: 'g', participants: [{ id: 'alice', kind: 'human', role: 'admin' }] },
      settings
    );
    expect(extension.participants.map(({ id, role }) => [id, role])).toEqual([
      ['alice', 'admin'],
      [AGENT, 'assignee'],
    ]);
  });

  it.each([
    ['someone else as assignee', [{ id: 'dave', kind: 'human', role: 'assignee' }]],
    ['someone else as admin', [{ id: 'dave', kind: 'human', role: 'admin' }]],
    ['someone else as reporter', [{ id: 'dave', kind: 'human', role: 'reporter' }]],
    ['the sender as assignee', [{ id: 'alice', kind: 'human', role: 'assignee' }]],
    ['the agent as a watcher', [{ id: AGENT, kind: 'agent', role: 'watcher' }]],
    ['the agent as a person', [{ id: AGENT, kind: 'human', role: 'assignee' }]],
    [
      'one id twice',
      [
        { id: 'dave', kind: 'human', role: 'watcher' },
        { id: 'dave', kind: 'human', role: 'watcher' },
      ],
    ],
  ])('refuses a new task naming %s', (_case, participants) => {
    const error = thrown(() =>
      extensionFromEnvelope({ name: 'n', goal: 'g', participants }, settings)
    );
    expect(error).toBeInstanceOf(ParticipantsRefusedError);
    expect(error).toMatchObject({ code: 'participant.refused' });
    expect((error as Error).message).toMatch(/^participants\[\d\] \(/);
  });

  it('refuses a new task with more participants than the cap', () => {
    const participants = Array.from({ length: MAX_PARTICIPANTS - 1 }, (_, index) => ({
      id: `watcher-${index}`,
      kind: 'human',
      role: 'watcher',
    }));
    // The sender and the agent join: one over the cap.
    const error = thrown(() =>
      extensionFromEnvelope({ name: 'n', goal: 'g', participants }, settings)
    );
    expect(error).toBeInstanceOf(ParticipantsRefusedError);
    expect((error as Error).message).toBe(
      `a task has at most ${MAX_PARTICIPANTS} participants; this would have ${MAX_PARTICIPANTS + 1}`
    );
    const fits = extensionFromEnvelope(
      { name: 'n', goal: 'g', participants: participants.slice(1) },
      settings
    );
    expect(fits.participants).toHaveLength(MAX_PARTICIPANTS);
  });

  it.each([
    ['parent_tasks', [{ task_id: 'the-owners-task' }]],
    ['sub_tasks', [{ task_id: 'the-owners-task', agent: null, state: 'TASK_STATE_WORKING' }]],
    ['plan', { steps: [] }],
  ])('refuses a new task that sets the server-owned relation %s', (key, value) => {
    const error = thrown(() =>
      extensionFromEnvelope({ name: 'n', goal: 'g', [key]: value }, settings)
    );
    expect(error).toBeInstanceOf(ServerControlledFieldError);
    expect(error).toMatchObject({ code: 'envelope.server_controlled', keys: [key] });
    expect((error as Error).message).toBe(
      `server-controlled fields cannot be set by a participant: ${key}`
    );
  });

  it("records delegated_from as a parent on the caller's own agent, never on this harness", () => {
    const extension = extensionFromEnvelope(
      { name: 'n', goal: 'g', delegated_from: { task_id: 'their-task' } },
      settings
    );
    expect(extension.parent_tasks).toEqual([
      { task_id: 'their-task', agent: { kind: 'agent', id: 'alice', version: null } },
    ]);
    for (const delegated_from of ['their-task', { task_id: '' }, { task_id: 'x', agent: null }]) {
      expect(() =>
        extensionFromEnvelope({ name: 'n', goal: 'g', delegated_from }, settings)
      ).toThrow(InvalidEnvelopeError);
    }
  });

  it('does not mutate the payload', () => {
    const payload = deepFreeze({
      name: 'n',
      goal: 'g',
      participants: [{ id: 'dave', kind: 'human', role: 'watcher' }],
    });
    expect(() => extensionFromEnvelope(payload, settings)).not.toThrow();
  });
});

describe('applyTaskEnvelope', () => {
  it('lets a reporter change the name, description and criteria', () => {
    const current = currentTask();
    const changed = applyTaskEnvelope(
      current,
      {
        name: 'Renamed',
        description: 'new description',
        acceptance_criteria: [{ text: 'Has a summary' }],
      },
      'alice'
    );
    expect(changed).toEqual({
      ...current,
      name: 'Renamed',
      description: 'new description',
      acceptance_criteria: [
        {
          id: 'c1',
          text: 'Has a summary',
          met: false,
          evidence: null,
          met_by: null,
          met_at: null,
          rejection: null,
        },
      ],
    });
  });

  it('lets an admin change the participants', () => {
    const participants = [
      { id: 'bob', kind: 'human', role: 'admin', display_name: '' },
      { id: AGENT, kind: 'agent', role: 'assignee', display_name: '' },
      { id: 'erin', kind: 'human', role: 'watcher', display_name: 'Erin' },
    ];
    expect(applyTaskEnvelope(currentTask(), { participants }, 'bob').participants).toEqual(
      participants
    );
  });

  it('refuses a participants change from anyone but an admin', () => {
    const error = thrown(() =>
      applyTaskEnvelope(
        currentTask(),
        { name: 'Renamed', participants: [{ id: 'alice', kind: 'human', role: 'admin' }] },
        'alice'
      )
    );
    expect(error).toBeInstanceOf(AdminRequiredError);
    expect(error).toMatchObject({
      code: 'envelope.admin_required',
      message: 'admin required to change participants',
    });
  });

  it('refuses a watcher any change, and an assignee the criteria, applying nothing', () => {
    const current = currentTask();
    const before = structuredClone(current);
    for (const payload of [{ name: 'Renamed' }, { acceptance_criteria: [] }]) {
      const error = thrown(() => applyTaskEnvelope(current, payload, 'carol'));
      expect(error).toBeInstanceOf(RoleRequiredError);
      expect(error).toMatchObject({ code: 'participant.role_required' });
      expect((error as Error).message).toMatch(/^carol is a watcher: only /);
    }
    const assigned = TaskExtensionSchema.parse({
      ...current,
      participants: [...current.participants, { id: 'dave', kind: 'human', role: 'assignee' }],
    });
    expect(applyTaskEnvelope(assigned, { name: 'Renamed' }, 'dave').name).toBe('Renamed');
    expect(() =>
      applyTaskEnvelope(assigned, { name: 'Renamed', acceptance_criteria: [] }, 'dave')
    ).toThrow(RoleRequiredError);
    expect(current).toEqual(before);
  });

  it('refuses every other key, naming them, even from an admin', () => {
    const error = thrown(() =>
      applyTaskEnvelope(currentTask(), { name: 'Renamed', goal: 'Other goal', type: 'x' }, 'bob')
    );
    expect(error).toBeInstanceOf(EnvelopeRefusedError);
    expect(error).toMatchObject({
      code: 'envelope.refused',
      keys: ['goal', 'type'],
      message: 'task envelope cannot change goal, type',
    });
  });

  it.each([
    ['parent_tasks', [{ task_id: 'someone-elses-task' }]],
    ['sub_tasks', [{ task_id: 'someone-elses-task', state: 'TASK_STATE_WORKING' }]],
    ['plan', null],
  ])('refuses the server-owned relation %s whole, even from an admin', (key, value) => {
    const current = currentTask();
    const error = thrown(() =>
      applyTaskEnvelope(current, { name: 'Renamed', [key]: value }, 'bob')
    );
    expect(error).toBeInstanceOf(ServerControlledFieldError);
    expect(error).toMatchObject({ code: 'envelope.server_controlled', keys: [key] });
  });

  it('refuses an admin a participants list naming one id twice or past the cap', () => {
    const twice = [
      { id: 'bob', kind: 'human', role: 'admin' },
      { id: 'bob', kind: 'human', role: 'watcher' },
    ];
    expect(() => applyTaskEnvelope(currentTask(), { participants: twice }, 'bob')).toThrow(
      ParticipantsRefusedError
    );
    const many = Array.from({ length: MAX_PARTICIPANTS + 1 }, (_, index) => ({
      id: index === 0 ? 'bob' : `p${index}`,
      kind: 'human',
      role: index === 0 ? 'admin' : 'watcher',
    }));
    const error = thrown(() => applyTaskEnvelope(currentTask(), { participants: many }, 'bob'));
    expect(error).toBeInstanceOf(ParticipantsRefusedError);
    expect((error as Error).message).toContain(`at most ${MAX_PARTICIPANTS}`);
  });

  describe('server-controlled fields are refused whole', () => {
    const cases = [
      ['lifecycle', 'delegated'],
      ['model', 'model-2'],
      ['reasoning_effort', 'high'],
    ] as const;

    it.each(cases)('refuses %s from an admin', (key, value) => {
      const current = currentTask();
      const before = structuredClone(current);
      const error = thrown(() => applyTaskEnvelope(current, { [key]: value }, 'bob'));
      expect(error).toBeInstanceOf(ServerControlledFieldError);
      expect(error).toMatchObject({ code: 'envelope.server_controlled', keys: [key] });
      expect(current).toEqual(before);
    });

    it.each(cases)('applies nothing of valid open fields sent with %s', (key, value) => {
      // Frozen: a partial apply that wrote into the current extension would throw a TypeError.
      const current = currentTask();
      const before = structuredClone(current);
      const error = thrown(() =>
        applyTaskEnvelope(
          current,
          { name: 'Renamed', description: 'new', participants: [], [key]: value },
          'bob'
        )
      );
      expect(error).toBeInstanceOf(ServerControlledFieldError);
      expect(current).toEqual(before);
    });

    it('names every server-controlled key it found', () => {
      const error = thrown(() =>
        applyTaskEnvelope(
          currentTask(),
          { reasoning_effort: 'high', lifecycle: 'delegated' },
          'bob'
        )
      );
      expect(error).toMatchObject({ keys: ['lifecycle', 'reasoning_effort'] });
    });

    it('refuses them even when the value is what the task already has', () => {
      expect(() => applyTaskEnvelope(currentTask(), { model: 'model-1' }, 'bob')).toThrow(
        ServerControlledFieldError
      );
    });
  });

  it('refuses anyone who is not on the task', () => {
    for (const actor of ['mallory', '']) {
      const error = thrown(() => applyTaskEnvelope(currentTask(), { name: 'Renamed' }, actor));
      expect(error).toBeInstanceOf(NotAParticipantError);
      expect(error).toMatchObject({ code: 'channel.not_a_member' });
    }
  });

  it('refuses a change whose merged result is not a valid extension', () => {
    const current = currentTask();
    const error = thrown(() =>
      applyTaskEnvelope(current, { name: '', description: 'fine' }, 'alice')
    );
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect(error).toMatchObject({ code: 'envelope.invalid' });
    expect((error as Error).message).toMatch(/^invalid task extension: 1 error\(s\)/);
  });

  it('refuses an admin participants change with an invalid role, applying nothing', () => {
    const error = thrown(() =>
      applyTaskEnvelope(
        currentTask(),
        { name: 'Renamed', participants: [{ id: 'bob', kind: 'human', role: 'owner' }] },
        'bob'
      )
    );
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
  });
});

describe('parseControl', () => {
  it.each([
    [{ action: 'complete' }, { action: 'complete' }],
    [
      { action: 'cancel', reason: 'no longer needed' },
      { action: 'cancel', reason: 'no longer needed' },
    ],
  ])('accepts %j', (payload, expected) => {
    expect(parseControl({ kind: 'control', payload })).toEqual(expected);
  });

  it.each([
    ['no action', {}],
    ['an unknown action', { action: 'pause' }],
    ['an empty reason', { action: 'complete', reason: '' }],
    ['an unknown key', { action: 'complete', force: true }],
  ])('refuses %s', (_label, payload) => {
    const error = thrown(() => parseControl({ kind: 'control', payload }));
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect((error as Error).message).toMatch(/^invalid control envelope: /);
  });
});
