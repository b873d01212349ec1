import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../functions/core/errors.js';
import { buildPlan, completeStep, linkTask } from '../../../functions/core/plan/plan.js';
import {
  MAX_PLAN_STEPS,
  MAX_SUB_TASKS,
  type Plan,
  type TaskExtension,
  TaskExtensionSchema,
} from '../../../functions/core/task/extension.schema.js';
import { INTRINSICS, intrinsicsFor } from '../../../functions/core/tools/intrinsics/index.js';
import type { Invocation } from '../../../functions/core/tools/invoker.js';
import { ToolRegistry } from '../../../functions/core/tools/registry.js';
import type { IntrinsicContext } from '../../../functions/core/tools/tool.js';
import { invokeTool } from '../../../functions/core/unit-of-work/perform.js';
import { deepFreeze } from '../../support/freeze.js';
import { endedRows } from '../../support/harness.js';

const AGENT = 'tiny-harness';

const samplePlan = (): Plan =>
  buildPlan([
    { name: 'Gather facts', description: 'collect', depends_on: [] },
    { name: 'Write report', description: 'write', depends_on: ['Gather facts'] },
  ]);

const extension = (plan: Plan | null = null): TaskExtension =>
  TaskExtensionSchema.parse({
    name: 'Report',
    goal: 'Write the report',
    participants: [
      { id: 'alice', kind: 'human', role: 'reporter' },
      { id: 'bob', kind: 'human', role: 'admin' },
      { id: AGENT, kind: 'agent', role: 'assignee' },
    ],
    plan,
  });

/** A frozen context: an intrinsic that wrote into the task would throw. */
const context = (overrides: Partial<IntrinsicContext> = {}): IntrinsicContext =>
  deepFreeze({
    extension: extension(),
    actor: 'alice',
    agentIds: ['researcher'],
    askedThisTurn: false,
    agentId: AGENT,
    artifactIds: [],
    now: '2026-01-01T00:00:00.000Z',
    ...overrides,
  });

const withPlan = (plan: Plan = samplePlan()) => context({ extension: extension(plan) });

const registry = new ToolRegistry();

/** Calls a tool the way the loop does: raw JSON text through the validating invoker. */
const call = (name: string, args: unknown, ctx: IntrinsicContext = context()) =>
  invokeTool(
    { id: 'call-1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
    { registry, runner: undefined, context: ctx, taskId: 'task-1' }
  );

const expectError = (invocation: Invocation, code: ErrorCode, message?: RegExp) => {
  expect(invocation).toMatchObject({ kind: 'error', code });
  if (invocation.kind !== 'error') return;
  expect(invocation.text.startsWith(`[${code}] `)).toBe(true);
  if (message !== undefined) expect(invocation.text).toMatch(message);
};

describe('the intrinsic catalogue', () => {
  it('holds the seven tasks-and-plans intrinsics with their idempotency', () => {
    expect(Object.fromEntries(INTRINSICS.map((tool) => [tool.name, tool.idempotent]))).toEqual({
      ask_participant: false,
      complete_step: true,
      create_plan: true,
      create_task_for_participant: false,
      meet_criterion: true,
      set_participant_role: true,
      spawn_subtask: false,
    });
  });
});

describe('the invoker in front of the intrinsics', () => {
  it('answers an unknown tool name with tool.not_found', async () => {
    expectError(await call('delete_everything', {}), 'tool.not_found', /delete_everything/);
  });

  it('answers arguments that are not JSON with tool.invalid_arguments', async () => {
    expectError(
      await call('complete_step', '{"step": "a", output:'),
      'tool.invalid_arguments',
      /not JSON/
    );
  });

  it('reads empty arguments as an empty object, which a tool with required fields refuses', async () => {
    expectError(await call('complete_step', ''), 'tool.invalid_arguments');
  });

  const validArguments: Record<string, Record<string, unknown>> = {
    ask_participant: { participant_id: 'alice', question: 'Which venue?' },
    complete_step: { step: 'gather-facts', output: 'facts' },
    create_plan: { steps: [{ name: 'A', description: 'a' }] },
    create_task_for_participant: { participant_id: 'alice', name: 'Review', goal: 'Review it' },
    set_participant_role: { participant_id: 'alice', role: 'watcher' },
    spawn_subtask: { name: 'Research', goal: 'Find sources' },
  };

  it.each(INTRINSICS.map((tool) => tool.name))('%s refuses an unknown key', async (name) => {
    const args = { ...validArguments[name], surprise: true };
    expectError(await call(name, args, withPlan()), 'tool.invalid_arguments', /surprise/);
  });

  it.each(INTRINSICS.map((tool) => tool.name))('%s refuses a non-object', async (name) => {
    expectError(await call(name, '[]', withPlan()), 'tool.invalid_arguments');
    expectError(await call(name, '"text"', withPlan()), 'tool.invalid_arguments');
  });
});

describe('what one task may hold', () => {
  const full = (count: number) =>
    context({ extension: { ...extension(), sub_tasks: endedRows(count) } });

  it('refuses a sub-task past the most one task may have, with a code the model can act on', async () => {
    expect(
      (await call('spawn_subtask', { name: 'R', goal: 'g' }, full(MAX_SUB_TASKS - 1))).kind
    ).toBe('command');
    for (const [tool, args] of [
      ['spawn_subtask', { name: 'R', goal: 'g' }],
      ['create_task_for_participant', { participant_id: 'alice', name: 'R', goal: 'g' }],
    ] as const) {
      expectError(
        await call(tool, args, full(MAX_SUB_TASKS)),
        'tool.refused',
        /has 1000 sub-tasks, the most one task may have \(1000\)/
      );
    }
  });

  it('refuses a plan of more steps than one create_plan may attach', async () => {
    const steps = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `Step ${index}`, description: '' }));
    expect((await call('create_plan', { steps: steps(MAX_PLAN_STEPS) })).kind).toBe('command');
    expectError(
      await call('create_plan', { steps: steps(MAX_PLAN_STEPS + 1) }),
      'tool.invalid_arguments',
      /steps/
    );
  });
});

describe('create_plan', () => {
  it('attaches a plan of slugged steps with dependencies by name', async () => {
    const invocation = await call('create_plan', {
      steps: [
        { name: 'Gather facts', description: 'collect' },
        { name: 'Write report', description: 'write', depends_on: ['Gather facts'] },
      ],
    });
    expect(invocation).toEqual({
      kind: 'command',
      command: { kind: 'attach_plan', plan: samplePlan() },
      text: 'plan attached with 2 steps',
    });
  });

  it('keeps the progress of surviving steps when a plan exists, recording the revision', async () => {
    const progressed = linkTask(
      completeStep(samplePlan(), 'gather-facts', 'the facts'),
      'write-report',
      { task_id: 'child-1', agent: null }
    );
    const invocation = await call(
      'create_plan',
      {
        steps: [
          { name: 'Gather facts', description: 'collect again' },
          { name: 'Review', description: 'review', depends_on: ['Gather facts'] },
        ],
      },
      withPlan(progressed)
    );
    expect(invocation).toMatchObject({
      kind: 'command',
      text: 'plan attached with 2 steps (revision 2)',
    });
    if (invocation.kind !== 'command' || invocation.command.kind !== 'attach_plan') return;
    const { plan } = invocation.command;
    expect(plan.revision).toBe(2);
    expect(plan.steps[0]).toMatchObject({
      id: 'gather-facts',
      description: 'collect again',
      state: 'done',
      output: 'the facts',
    });
    expect(plan.steps[1]).toMatchObject({ id: 'review', state: 'pending' });
    expect(plan.revisions).toEqual([
      {
        revision: 2,
        added: ['review'],
        kept: ['gather-facts'],
        removed: [
          expect.objectContaining({
            id: 'write-report',
            linked_tasks: [{ task_id: 'child-1', agent: null }],
          }),
        ],
      },
    ]);
  });

  it.each([
    [
      'a cycle',
      [
        { name: 'A', description: 'a', depends_on: ['B'] },
        { name: 'B', description: 'b', depends_on: ['A'] },
      ],
    ],
    ['a dangling dependency', [{ name: 'A', description: 'a', depends_on: ['Nowhere'] }]],
    [
      'duplicate step ids',
      [
        { name: 'Step one', description: 'a' },
        { name: 'step-one', description: 'b' },
      ],
    ],
  ])('answers %s with plan.cycle', async (_label, steps) => {
    expectError(await call('create_plan', { steps }), 'plan.cycle');
  });

  it('refuses a plan with no steps or a nameless step', async () => {
    expectError(await call('create_plan', { steps: [] }), 'tool.invalid_arguments');
    expectError(
      await call('create_plan', { steps: [{ name: '', description: 'x' }] }),
      'tool.invalid_arguments'
    );
  });
});

describe('complete_step', () => {
  it.each(['write-report', 'Write report'])(
    'completes a step named by id or name (%s)',
    async (step) => {
      expect(await call('complete_step', { step, output: 'the report' }, withPlan())).toEqual({
        kind: 'command',
        command: { kind: 'complete_step', stepId: 'write-report', output: 'the report' },
        text: 'step write-report done',
      });
    }
  );

  it('answers plan.missing when there is no plan', async () => {
    expectError(
      await call('complete_step', { step: 'a', output: 'x' }),
      'plan.missing',
      /call create_plan first/
    );
  });

  it('answers plan.unknown_step for a step the plan lacks', async () => {
    expectError(
      await call('complete_step', { step: 'Publish', output: 'x' }, withPlan()),
      'plan.unknown_step',
      /Publish/
    );
  });
});

describe('spawn_subtask', () => {
  it('names the registered remote agents, and what each does, in its description', () => {
    const describedFor = (agents: { id: string; description: string }[]) =>
      new ToolRegistry([], intrinsicsFor(agents))
        .definitions()
        .find((tool) => tool.name === 'spawn_subtask')?.description;
    expect(describedFor([])).toBe(
      'Run a step in context isolation as a sub-task, locally or on a remote agent.'
    );
    expect(
      describedFor([
        { id: 'ledger', description: 'keeps the books' },
        { id: 'peer', description: '' },
      ])
    ).toBe(
      'Run a step in context isolation as a sub-task, locally or on a remote agent. Remote agents (set agent to the id): ledger (keeps the books); peer.'
    );
  });

  it('asks for a child on this harness by default', async () => {
    expect(await call('spawn_subtask', { name: 'Research', goal: 'Find sources' })).toEqual({
      kind: 'command',
      command: {
        kind: 'spawn_subtask',
        name: 'Research',
        goal: 'Find sources',
        acceptanceCriteria: [],
        agent: null,
        stepId: null,
        budget: null,
      },
      text: 'sub-task Research requested',
    });
  });

  it.each(['gather-facts', 'Gather facts'])(
    'links the step named by id or name (%s)',
    async (step) => {
      const invocation = await call(
        'spawn_subtask',
        {
          name: 'Research',
          goal: 'Find sources',
          acceptance_criteria: ['Three sources'],
          agent: 'researcher',
          step,
        },
        withPlan()
      );
      expect(invocation).toMatchObject({
        kind: 'command',
        command: {
          agent: 'researcher',
          stepId: 'gather-facts',
          acceptanceCriteria: ['Three sources'],
        },
      });
    }
  );

  it('answers an unregistered agent with tool.invalid_arguments naming the registered ones', async () => {
    expectError(
      await call('spawn_subtask', { name: 'R', goal: 'g', agent: 'stranger' }),
      'tool.invalid_arguments',
      /unknown agent stranger; registered: researcher/
    );
  });

  it('gives a child on this harness a budget within what the task has left', async () => {
    const left = context({ budgetLeft: { usd: 2.5, model_calls: 10 } });
    const within = await call(
      'spawn_subtask',
      { name: 'R', goal: 'g', budget: { usd: 2.5, input_tokens: 9_000 } },
      left
    );
    expect(within).toMatchObject({
      kind: 'command',
      command: { budget: { usd: 2.5, input_tokens: 9_000 } },
    });
    expectError(
      await call(
        'spawn_subtask',
        { name: 'R', goal: 'g', budget: { usd: 3, model_calls: 4 } },
        left
      ),
      'tool.invalid_arguments',
      /more than this task's budget has left: usd 3 \(left 2.5\)$/
    );
  });

  it('refuses a budget for a remote agent, and a budget with no limit', async () => {
    expectError(
      await call('spawn_subtask', {
        name: 'R',
        goal: 'g',
        agent: 'researcher',
        budget: { usd: 1 },
      }),
      'tool.invalid_arguments',
      /a remote agent keeps its own/
    );
    expectError(
      await call('spawn_subtask', { name: 'R', goal: 'g', budget: {} }),
      'tool.invalid_arguments'
    );
  });

  it('answers plan.missing or plan.unknown_step for a step it cannot resolve', async () => {
    expectError(await call('spawn_subtask', { name: 'R', goal: 'g', step: 'a' }), 'plan.missing');
    expectError(
      await call('spawn_subtask', { name: 'R', goal: 'g', step: 'Publish' }, withPlan()),
      'plan.unknown_step'
    );
  });
});

describe('ask_participant', () => {
  it('parks the task on a question to a participant', async () => {
    const invocation = await call('ask_participant', {
      participant_id: 'bob',
      question: 'Which venue?',
      options: ['Hall', 'Garden'],
    });
    expect(invocation).toEqual({
      kind: 'command',
      command: {
        kind: 'wait_for_reply',
        participantId: 'bob',
        question: 'Which venue?',
        options: ['Hall', 'Garden'],
      },
      text: 'question sent to bob; the task waits for the answer',
    });
  });

  it('answers channel.not_a_member for someone not on the task', async () => {
    expectError(
      await call('ask_participant', { participant_id: 'mallory', question: 'q' }),
      'channel.not_a_member',
      /no such participant/
    );
  });

  it('refuses a second question in the same turn with tool.refused', async () => {
    expectError(
      await call(
        'ask_participant',
        { participant_id: 'bob', question: 'q' },
        context({ askedThisTurn: true })
      ),
      'tool.refused'
    );
  });

  it('refuses an empty question', async () => {
    expectError(
      await call('ask_participant', { participant_id: 'bob', question: '' }),
      'tool.invalid_arguments'
    );
  });
});

describe('create_task_for_participant', () => {
  it.each(['write-report', 'Write report'])(
    'creates a task for a participant linked to a step (%s)',
    async (step) => {
      expect(
        await call(
          'create_task_for_participant',
          { participant_id: 'alice', name: 'Review', goal: 'Review the draft', step },
          withPlan()
        )
      ).toEqual({
        kind: 'command',
        command: {
          kind: 'create_participant_task',
          participantId: 'alice',
          name: 'Review',
          goal: 'Review the draft',
          acceptanceCriteria: [],
          stepId: 'write-report',
        },
        text: 'task Review created for alice',
      });
    }
  );

  it('answers channel.not_a_member for someone not on the task', async () => {
    expectError(
      await call('create_task_for_participant', {
        participant_id: 'mallory',
        name: 'n',
        goal: 'g',
      }),
      'channel.not_a_member'
    );
  });

  it('answers plan.unknown_step for a step the plan lacks', async () => {
    expectError(
      await call(
        'create_task_for_participant',
        { participant_id: 'alice', name: 'n', goal: 'g', step: 'Publish' },
        withPlan()
      ),
      'plan.unknown_step'
    );
  });
});

describe('set_participant_role', () => {
  it('lets an admin change a participant role', async () => {
    expect(
      await call(
        'set_participant_role',
        { participant_id: 'alice', role: 'watcher' },
        context({ actor: 'bob' })
      )
    ).toEqual({
      kind: 'command',
      command: { kind: 'set_role', participantId: 'alice', role: 'watcher' },
      text: 'alice is now watcher',
    });
  });

  it.each(['alice', 'mallory', null])(
    'answers channel.not_a_member when the actor %s is no admin',
    async (actor) => {
      expectError(
        await call(
          'set_participant_role',
          { participant_id: 'alice', role: 'admin' },
          context({ actor })
        ),
        'channel.not_a_member',
        /only an admin may change roles/
      );
    }
  );

  it('answers channel.not_a_member for a target not on the task', async () => {
    expectError(
      await call(
        'set_participant_role',
        { participant_id: 'mallory', role: 'watcher' },
        context({ actor: 'bob' })
      ),
      'channel.not_a_member',
      /no such participant/
    );
  });

  it('refuses a role outside the four', async () => {
    expectError(
      await call(
        'set_participant_role',
        { participant_id: 'alice', role: 'owner' },
        context({ actor: 'bob' })
      ),
      'tool.invalid_arguments'
    );
  });
});

describe('meet_criterion', () => {
  const NOW = '2026-01-01T00:00:00.000Z';
  const withCriteria = (overrides: Record<string, unknown> = {}) =>
    context({
      extension: TaskExtensionSchema.parse({
        ...extension(completeStep(samplePlan(), 'gather-facts', 'the facts')),
        acceptance_criteria: [{ text: 'Cites sources' }, { text: 'Under a page', met: true }],
        sub_tasks: [{ task_id: 'child-1', agent: null, state: 'TASK_STATE_COMPLETED' }],
        ...overrides,
      }),
      artifactIds: ['report.pdf'],
    });

  it('marks a criterion met by id, with the evidence, its checked links, the agent and the time', async () => {
    const invocation = await call(
      'meet_criterion',
      {
        criterion: 'c1',
        evidence: 'three sources, each linked',
        steps: ['Gather facts'],
        sub_tasks: ['child-1'],
        artifacts: ['report.pdf'],
      },
      withCriteria()
    );
    expect(invocation).toEqual({
      kind: 'command',
      command: {
        kind: 'meet_criterion',
        criterionId: 'c1',
        evidence: {
          text: 'three sources, each linked',
          steps: ['gather-facts'],
          tasks: [{ task_id: 'child-1', agent: null }],
          artifacts: ['report.pdf'],
        },
        metBy: AGENT,
        metAt: NOW,
      },
      text: 'criterion c1 "Cites sources" met (2 of 2 met)',
    });
  });

  it('takes a criterion by its position too', async () => {
    const invocation = await call(
      'meet_criterion',
      { criterion: '2', evidence: 'half a page' },
      withCriteria()
    );
    expect(invocation).toMatchObject({ kind: 'command', command: { criterionId: 'c2' } });
  });

  it.each([
    [{ criterion: 'c7', evidence: 'x' }, 'criterion.unknown', /the task has: c1, c2/],
    [{ criterion: '0', evidence: 'x' }, 'criterion.unknown', /no acceptance criterion "0"/],
    [
      { criterion: 'c1', evidence: 'x', steps: ['Write report'] },
      'criterion.invalid_evidence',
      /step write-report has no output yet/,
    ],
    [{ criterion: 'c1', evidence: 'x', steps: ['Nowhere'] }, 'plan.unknown_step', /Nowhere/],
    [
      { criterion: 'c1', evidence: 'x', sub_tasks: ['child-9'] },
      'criterion.invalid_evidence',
      /no sub-task "child-9"/,
    ],
    [
      { criterion: 'c1', evidence: 'x', artifacts: ['x.png'] },
      'criterion.invalid_evidence',
      /no artifact "x.png"/,
    ],
    [{ criterion: 'c1', evidence: '' }, 'tool.invalid_arguments', undefined],
    [{ criterion: 'c1', evidence: 'x'.repeat(2_001) }, 'tool.invalid_arguments', undefined],
  ] as const)('refuses %j with %s', async (args, code, message) => {
    expectError(await call('meet_criterion', args, withCriteria()), code, message);
  });

  it('answers plan.missing for a step link on a task with no plan', async () => {
    expectError(
      await call(
        'meet_criterion',
        { criterion: 'c1', evidence: 'x', steps: ['a'] },
        withCriteria({ plan: null })
      ),
      'plan.missing'
    );
  });
});
