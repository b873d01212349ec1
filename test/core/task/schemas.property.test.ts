import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { isHarnessError } from '../../../functions/core/errors.js';
import {
  extensionFromEnvelope,
  findEnvelope,
  parseControl,
} from '../../../functions/core/task/envelope.js';
import {
  ControlPayloadSchema,
  EventEnvelopeSchema,
} from '../../../functions/core/task/envelope.schema.js';
import {
  ROLES,
  StatusExtensionSchema,
  TaskExtensionSchema,
} from '../../../functions/core/task/extension.schema.js';
import { INTRINSICS } from '../../../functions/core/tools/intrinsics/index.js';
import { ToolRegistry } from '../../../functions/core/tools/registry.js';
import { invokeTool } from '../../../functions/core/unit-of-work/perform.js';
import { rawEnvelopeMessage } from '../../support/messages.js';

type Sample = Record<string, unknown>;

const validExtension: Sample = {
  name: 'Report',
  type: 'support',
  goal: 'Write the report',
  description: 'd',
  acceptance_criteria: [{ text: 'Has a summary', met: false }],
  participants: [
    { id: 'alice', kind: 'human', role: 'reporter', display_name: '' },
    { id: 'tiny-harness', kind: 'agent', role: 'assignee' },
  ],
  parent_tasks: [{ task_id: 'task-0', agent: null }],
  sub_tasks: [
    {
      task_id: 'remote-1',
      agent: { kind: 'agent', id: 'researcher', version: '*' },
      state: 'TASK_STATE_INPUT_REQUIRED',
      sub_state: 'awaiting-answer',
    },
  ],
  plan: {
    steps: [
      { id: 'a', name: 'A', linked_tasks: [{ task_id: 'remote-1' }], state: 'active' },
      { id: 'b', name: 'B', depends_on: ['a'], output: null },
    ],
  },
  lifecycle: 'conversation',
  model: 'model-1',
  reasoning_effort: 'minimal',
};

const validArguments: Record<string, Sample> = {
  ask_participant: { participant_id: 'alice', question: 'Which venue?', options: ['Hall'] },
  complete_step: { step: 'a', output: 'facts' },
  create_plan: { steps: [{ name: 'A', description: 'a', depends_on: [] }] },
  create_task_for_participant: {
    participant_id: 'alice',
    name: 'Review',
    goal: 'Review it',
    acceptance_criteria: ['Signed off'],
    step: null,
  },
  set_participant_role: { participant_id: 'alice', role: 'watcher' },
  meet_criterion: { criterion: 'c1', evidence: 'the summary is on page 1', steps: ['a'] },
  spawn_subtask: { name: 'Research', goal: 'Find sources', agent: null, step: 'a' },
};

const SCHEMAS: ReadonlyArray<{ name: string; schema: z.ZodType; sample: Sample }> = [
  { name: 'TaskExtensionSchema', schema: TaskExtensionSchema, sample: validExtension },
  {
    name: 'EventEnvelopeSchema',
    schema: EventEnvelopeSchema,
    sample: { kind: 'task', payload: { name: 'n', goal: 'g' } },
  },
  {
    name: 'ControlPayloadSchema',
    schema: ControlPayloadSchema,
    sample: { action: 'cancel', reason: 'r' },
  },
  {
    name: 'StatusExtensionSchema',
    schema: StatusExtensionSchema,
    sample: { sub_state: 'awaiting-answer' },
  },
  ...INTRINSICS.map((tool) => ({
    name: `${tool.name} input`,
    schema: tool.input,
    sample: validArguments[tool.name] ?? {},
  })),
];

const json = fc.jsonValue({ maxDepth: 3 });

/** A valid sample with keys dropped, values replaced by random JSON and unknown keys added. */
const mutated = (sample: Sample): fc.Arbitrary<unknown> => {
  const keys = Object.keys(sample);
  return fc
    .record({
      drop: fc.subarray(keys),
      replace: fc.dictionary(fc.constantFrom(...keys), json, { maxKeys: 2 }),
      extra: fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 1 }),
      useExtra: fc.boolean(),
    })
    .map(({ drop, replace, extra, useExtra }) => {
      const value: Sample = { ...sample, ...replace, ...(useExtra ? extra : {}) };
      for (const key of drop) delete value[key];
      return value;
    });
};

/** Anything a client, a stored record or the model could hand over. */
const input = (sample: Sample) =>
  fc.oneof(json, fc.object({ maxDepth: 2 }), mutated(sample), fc.constant(sample));

describe.each(SCHEMAS)('$name under arbitrary input', ({ schema, sample }) => {
  it('accepts its valid sample', () => {
    expect(schema.safeParse(sample).success).toBe(true);
  });

  it('either refuses without throwing, or parses to a value that re-parses identically', () => {
    fc.assert(
      fc.property(input(sample), (value) => {
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
          expect(parsed.error.issues.length).toBeGreaterThan(0);
          return;
        }
        // The output is a valid input that parses to itself, in memory and through JSON (the store).
        expect(schema.parse(parsed.data)).toEqual(parsed.data);
        const stored = JSON.parse(JSON.stringify(parsed.data));
        expect(schema.parse(stored)).toEqual(stored);
      }),
      { numRuns: 300 }
    );
  });
});

describe('the entry points under arbitrary input throw only typed errors', () => {
  const typedOrNothing = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(isHarnessError(error), String(error)).toBe(true);
    }
  };

  it('findEnvelope and parseControl', () => {
    fc.assert(
      fc.property(
        fc.oneof(json, mutated({ kind: 'control', payload: { action: 'complete' } })),
        (value) => {
          typedOrNothing(() => {
            const envelope = findEnvelope(rawEnvelopeMessage(value));
            if (envelope?.kind === 'control') parseControl(envelope);
          });
        }
      ),
      { numRuns: 300 }
    );
  });

  it('extensionFromEnvelope', () => {
    fc.assert(
      fc.property(fc.oneof(fc.object({ maxDepth: 2 }), mutated(validExtension)), (value) => {
        typedOrNothing(() =>
          extensionFromEnvelope(value as Record<string, unknown>, {
            sender: 'alice',
            agentId: 'tiny-harness',
          })
        );
      }),
      { numRuns: 300 }
    );
  });

  it('every intrinsic through the invoker: an error result or a command, never a throw', async () => {
    const registry = new ToolRegistry();
    const context = {
      extension: TaskExtensionSchema.parse({
        name: 'n',
        goal: 'g',
        participants: [{ id: 'alice', kind: 'human', role: 'admin' }],
        plan: { steps: [{ id: 'a', name: 'A' }] },
      }),
      actor: 'alice',
      agentIds: ['researcher'],
      askedThisTurn: false,
      agentId: 'tiny-harness',
      artifactIds: [],
      now: '2026-01-01T00:00:00.000Z',
    };
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...INTRINSICS.map((tool) => tool.name))
          .chain((name) => fc.tuple(fc.constant(name), input(validArguments[name] ?? {}))),
        async ([name, args]) => {
          const invocation = await invokeTool(
            { id: 'call-1', name, arguments: JSON.stringify(args) },
            { registry, runner: undefined, context, taskId: 'task-1' }
          );
          expect(['error', 'command']).toContain(invocation.kind);
        }
      ),
      { numRuns: 300 }
    );
  });
});

describe('unknown keys are refused at every level', () => {
  const withKey = <T extends object>(value: T, key = 'surprise'): T => ({ ...value, [key]: 1 });
  const ext = validExtension as {
    participants: Sample[];
    acceptance_criteria: Sample[];
    parent_tasks: Sample[];
    sub_tasks: Array<Sample & { agent: Sample }>;
    plan: { steps: Sample[] };
  };

  it.each([
    ['the top level', withKey(validExtension)],
    ['a participant', { ...validExtension, participants: [withKey(ext.participants[0]!)] }],
    [
      'an acceptance criterion',
      { ...validExtension, acceptance_criteria: [withKey(ext.acceptance_criteria[0]!)] },
    ],
    ['a parent link', { ...validExtension, parent_tasks: [withKey(ext.parent_tasks[0]!)] }],
    ['a sub-task row', { ...validExtension, sub_tasks: [withKey(ext.sub_tasks[0]!)] }],
    [
      "a sub-task row's agent",
      {
        ...validExtension,
        sub_tasks: [{ ...ext.sub_tasks[0]!, agent: withKey(ext.sub_tasks[0]!.agent) }],
      },
    ],
    ['the plan', { ...validExtension, plan: withKey(ext.plan) }],
    ['a step', { ...validExtension, plan: { steps: [withKey(ext.plan.steps[0]!)] } }],
  ])('in the task extension: %s', (_label, value) => {
    expect(TaskExtensionSchema.safeParse(value).success).toBe(false);
  });

  it('a key spelled like a known one in another case is unknown too', () => {
    expect(TaskExtensionSchema.safeParse({ name: 'n', goal: 'g', Goal: 'x' }).success).toBe(false);
  });

  it('in the envelope, the control payload and the status extension', () => {
    expect(EventEnvelopeSchema.safeParse({ kind: 'task', payload: {}, version: 2 }).success).toBe(
      false
    );
    expect(ControlPayloadSchema.safeParse({ action: 'complete', force: true }).success).toBe(false);
    expect(
      StatusExtensionSchema.safeParse({ sub_state: 'awaiting-answer', since: 1 }).success
    ).toBe(false);
  });

  it.each(INTRINSICS.map((tool) => tool.name))('in the %s arguments', (name) => {
    const tool = INTRINSICS.find((candidate) => candidate.name === name)!;
    expect(tool.input.safeParse(withKey(validArguments[name] ?? {})).success).toBe(false);
  });

  it('in a create_plan step', () => {
    const step = { name: 'A', description: 'a', after: ['B'] };
    const tool = INTRINSICS.find((candidate) => candidate.name === 'create_plan')!;
    expect(tool.input.safeParse({ steps: [step] }).success).toBe(false);
  });

  it('roles outside the four are refused wherever a role appears', () => {
    fc.assert(
      fc.property(
        fc.string().filter((role) => !(ROLES as readonly string[]).includes(role)),
        (role) => {
          const participants = [{ id: 'a', kind: 'human', role }];
          expect(
            TaskExtensionSchema.safeParse({ name: 'n', goal: 'g', participants }).success
          ).toBe(false);
          const setRole = INTRINSICS.find((tool) => tool.name === 'set_participant_role')!;
          expect(setRole.input.safeParse({ participant_id: 'a', role }).success).toBe(false);
        }
      )
    );
  });
});
