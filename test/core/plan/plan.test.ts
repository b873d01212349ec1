import { describe, expect, it } from 'vitest';
import { PlanCycleError, UnknownStepError } from '../../../functions/core/errors.js';
import {
  applyLinkedTaskState,
  buildPlan,
  completeStep,
  linkTask,
  MAX_PLAN_REVISIONS,
  readySteps,
  renderPlanForModel,
  resolveStep,
  revisePlan,
  unresolvedSteps,
} from '../../../functions/core/plan/plan.js';
import {
  type Plan,
  PlanSchema,
  type StepState,
  type TaskRef,
  type TaskStateName,
} from '../../../functions/core/task/extension.schema.js';
import { deepFreeze } from '../../support/freeze.js';

const ref = (task_id: string): TaskRef => ({ task_id, agent: null });

/** gather-facts <- write-report <- review, frozen so any mutation throws. */
const samplePlan = (): Plan =>
  deepFreeze(
    buildPlan([
      { name: 'Gather facts', description: 'find sources', depends_on: [] },
      { name: 'Write report', description: 'draft it', depends_on: ['Gather facts'] },
      { name: 'Review', description: 'check it', depends_on: ['Write report'] },
    ])
  );

const withState = (plan: Plan, id: string, state: StepState): Plan => ({
  ...plan,
  steps: plan.steps.map((s) => (s.id === id ? { ...s, state } : s)),
});

describe('a built plan', () => {
  it('parses unchanged with the strict PlanSchema', () => {
    const plan = samplePlan();
    expect(PlanSchema.parse(plan)).toEqual(plan);
  });
});

describe('resolveStep', () => {
  it('finds a step by its exact id', () => {
    expect(resolveStep(samplePlan(), 'write-report')?.name).toBe('Write report');
  });

  it('finds a step by its name through the slug', () => {
    expect(resolveStep(samplePlan(), 'Write Report')?.id).toBe('write-report');
    expect(resolveStep(samplePlan(), '  gather FACTS ')?.id).toBe('gather-facts');
  });

  it('prefers an exact id over another step whose id is the slug', () => {
    const plan: Plan = {
      revision: 1,
      revisions: [],
      steps: [
        { ...samplePlan().steps[0]!, id: 'a-b', name: 'A b' },
        { ...samplePlan().steps[0]!, id: 'A_B', name: 'odd id' },
      ],
    };
    expect(resolveStep(plan, 'A_B')?.name).toBe('odd id');
  });

  it('returns undefined for an unknown step', () => {
    expect(resolveStep(samplePlan(), 'Publish')).toBeUndefined();
  });
});

describe('completeStep', () => {
  it('marks the step done with its output, by name or id, without touching the input', () => {
    const plan = samplePlan();
    const next = completeStep(plan, 'Gather facts', 'three sources found');
    expect(next).not.toBe(plan);
    expect(resolveStep(next, 'gather-facts')).toMatchObject({
      state: 'done',
      output: 'three sources found',
    });
    expect(resolveStep(plan, 'gather-facts')).toMatchObject({ state: 'pending', output: null });
    expect(next.steps[1]).toBe(plan.steps[1]);
  });

  it('re-completes a done step, overwriting its output', () => {
    const once = completeStep(samplePlan(), 'gather-facts', 'first');
    const twice = completeStep(once, 'gather-facts', 'second');
    expect(resolveStep(twice, 'gather-facts')).toMatchObject({ state: 'done', output: 'second' });
  });

  it('does not check that dependencies are done', () => {
    const next = completeStep(samplePlan(), 'review', 'looks fine');
    expect(resolveStep(next, 'review')?.state).toBe('done');
  });

  it('throws UnknownStepError for a step the plan lacks', () => {
    expect(() => completeStep(samplePlan(), 'Publish', 'x')).toThrow(UnknownStepError);
    try {
      completeStep(samplePlan(), 'Publish', 'x');
    } catch (error) {
      expect((error as UnknownStepError).code).toBe('plan.unknown_step');
      expect((error as UnknownStepError).step).toBe('Publish');
    }
  });
});

describe('linkTask', () => {
  it('appends the task to the step resolved by id or name', () => {
    const plan = samplePlan();
    const one = linkTask(plan, 'Write report', ref('t-1'));
    const two = linkTask(one, 'write-report', {
      task_id: 't-2',
      agent: { kind: 'agent', id: 'researcher', version: null },
    });
    expect(resolveStep(two, 'write-report')?.linked_tasks.map((t) => t.task_id)).toEqual([
      't-1',
      't-2',
    ]);
    expect(resolveStep(plan, 'write-report')?.linked_tasks).toEqual([]);
  });

  it('does not link the same task id twice', () => {
    const once = linkTask(samplePlan(), 'review', ref('t-1'));
    const again = linkTask(once, 'Review', ref('t-1'));
    expect(again).toBe(once);
    expect(resolveStep(again, 'review')?.linked_tasks).toEqual([ref('t-1')]);
  });

  it('throws UnknownStepError for a step the plan lacks', () => {
    expect(() => linkTask(samplePlan(), 'nope', ref('t-1'))).toThrow(UnknownStepError);
  });
});

describe('applyLinkedTaskState', () => {
  const linked = (state: StepState): Plan =>
    deepFreeze(
      withState(linkTask(samplePlan(), 'write-report', ref('child')), 'write-report', state)
    );
  const stateAfter = (from: StepState, child: TaskStateName): StepState | undefined =>
    resolveStep(applyLinkedTaskState(linked(from), 'child', child), 'write-report')?.state;

  it.each([
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
  ] as const)('turns a pending step active when its child is %s', (child) => {
    expect(stateAfter('pending', child)).toBe('active');
  });

  it.each(['TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'] as const)(
    'fails a pending or active step when its child is %s',
    (child) => {
      expect(stateAfter('pending', child)).toBe('failed');
      expect(stateAfter('active', child)).toBe('failed');
    }
  );

  it('leaves the step as it is when the child completes', () => {
    for (const from of ['pending', 'active', 'failed', 'done'] as const) {
      expect(stateAfter(from, 'TASK_STATE_COMPLETED')).toBe(from);
    }
  });

  it('never changes a done step', () => {
    for (const child of ['TASK_STATE_WORKING', 'TASK_STATE_FAILED'] as const) {
      expect(stateAfter('done', child)).toBe('done');
    }
  });

  it('does not revive a failed step when a child runs again', () => {
    expect(stateAfter('failed', 'TASK_STATE_WORKING')).toBe('failed');
  });

  it('updates every step that links the task, and only those', () => {
    const plan = deepFreeze(
      linkTask(linkTask(samplePlan(), 'gather-facts', ref('child')), 'review', ref('child'))
    );
    const next = applyLinkedTaskState(plan, 'child', 'TASK_STATE_WORKING');
    expect(next.steps.map((s) => s.state)).toEqual(['active', 'pending', 'active']);
    expect(next.steps[1]).toBe(plan.steps[1]);
  });

  it('returns the same plan when nothing changed', () => {
    const plan = linked('active');
    expect(applyLinkedTaskState(plan, 'child', 'TASK_STATE_WORKING')).toBe(plan);
    expect(applyLinkedTaskState(plan, 'someone-else', 'TASK_STATE_FAILED')).toBe(plan);
  });
});

describe('revisePlan', () => {
  it('returns the next plan unchanged when there is no current plan', () => {
    const next = samplePlan();
    expect(revisePlan(null, next)).toBe(next);
  });

  it('keeps state, output and links of surviving steps and records the revision', () => {
    const current = deepFreeze(
      linkTask(
        completeStep(completeStep(samplePlan(), 'gather-facts', 'facts'), 'review', 'ok'),
        'write-report',
        ref('writer')
      )
    );
    const next = deepFreeze(
      buildPlan([
        { name: 'Gather facts', description: 'again, wider', depends_on: [] },
        { name: 'Write report', description: 'longer', depends_on: ['Gather facts'] },
        { name: 'Translate', description: 'to French', depends_on: ['Write report'] },
      ])
    );
    const revised = revisePlan(current, next);

    expect(revised.revision).toBe(2);
    expect(revised.steps).toEqual([
      { ...next.steps[0], state: 'done', output: 'facts' },
      { ...next.steps[1], linked_tasks: [ref('writer')] },
      next.steps[2],
    ]);
    expect(revised.steps[0]?.description).toBe('again, wider');
    expect(revised.revisions).toEqual([
      {
        revision: 2,
        added: ['translate'],
        kept: ['gather-facts', 'write-report'],
        removed: [{ ...current.steps[2], description: '', depends_on: [] }],
      },
    ]);
    expect(revised.revisions[0]?.removed[0]).toMatchObject({ state: 'done', output: 'ok' });
    expect(PlanSchema.parse(revised)).toEqual(revised);
  });

  it('appends to the revision history on every revision', () => {
    const first = samplePlan();
    const second = revisePlan(
      first,
      buildPlan([{ name: 'Review', description: '', depends_on: [] }])
    );
    const third = revisePlan(second, samplePlan());
    expect(third.revision).toBe(3);
    expect(third.revisions.map((r) => r.revision)).toEqual([2, 3]);
    expect(third.revisions[1]).toMatchObject({
      added: ['gather-facts', 'write-report'],
      kept: ['review'],
      removed: [],
    });
  });

  it('keeps the latest MAX_PLAN_REVISIONS revisions: a plan revised often does not grow without end', () => {
    let plan = samplePlan();
    for (let n = 0; n < MAX_PLAN_REVISIONS + 5; n++) {
      plan = revisePlan(
        plan,
        buildPlan([{ name: `Round ${n}`, description: 'x'.repeat(1_000), depends_on: [] }])
      );
    }
    expect(plan.revision).toBe(MAX_PLAN_REVISIONS + 6);
    expect(plan.revisions.map((r) => r.revision)).toEqual(
      Array.from({ length: MAX_PLAN_REVISIONS }, (_, n) => n + 7)
    );
    // A dropped step's description is not kept: twenty revisions of long steps stay small.
    expect(JSON.stringify(plan.revisions).length).toBeLessThan(5_000);
  });

  it('refuses a cyclic next plan and leaves the current plan untouched', () => {
    const current = deepFreeze(completeStep(samplePlan(), 'gather-facts', 'facts'));
    const snapshot = structuredClone(current);
    const cyclic: Plan = deepFreeze({
      revision: 1,
      revisions: [],
      steps: [
        { ...current.steps[0]!, depends_on: ['review'] },
        { ...current.steps[2]!, depends_on: ['gather-facts'] },
      ],
    });
    expect(() => revisePlan(current, cyclic)).toThrow(PlanCycleError);
    expect(current).toEqual(snapshot);
  });

  it('refuses a next plan with a dangling dependency', () => {
    const next: Plan = {
      revision: 1,
      revisions: [],
      steps: [{ ...samplePlan().steps[1]! }],
    };
    expect(() => revisePlan(samplePlan(), next)).toThrow(/unknown step gather-facts/);
  });
});

describe('readySteps and unresolvedSteps', () => {
  it('lists pending steps whose dependencies are all done', () => {
    const plan = samplePlan();
    expect(readySteps(plan).map((s) => s.id)).toEqual(['gather-facts']);
    const next = completeStep(plan, 'gather-facts', 'facts');
    expect(readySteps(next).map((s) => s.id)).toEqual(['write-report']);
    expect(readySteps(withState(next, 'write-report', 'active'))).toEqual([]);
  });

  it('lists pending and active steps as unresolved', () => {
    let plan = completeStep(samplePlan(), 'gather-facts', 'facts');
    plan = withState(plan, 'write-report', 'active');
    expect(unresolvedSteps(plan).map((s) => s.id)).toEqual(['write-report', 'review']);
    plan = withState(plan, 'review', 'failed');
    expect(unresolvedSteps(plan).map((s) => s.id)).toEqual(['write-report']);
  });
});

describe('renderPlanForModel', () => {
  it('tells the model to create a plan when there is none', () => {
    expect(renderPlanForModel(null)).toBe('(no plan yet; create one with create_plan)');
  });

  it('draws one line per step with its mark, id, name, dependencies and output', () => {
    let plan = completeStep(samplePlan(), 'gather-facts', 'three sources');
    plan = withState(plan, 'write-report', 'active');
    expect(renderPlanForModel(plan)).toBe(
      [
        '- [x] gather-facts: Gather facts → three sources',
        '- [>] write-report: Write report (after gather-facts)',
        '- [ ] review: Review (after write-report)',
      ].join('\n')
    );
    expect(renderPlanForModel(withState(plan, 'review', 'failed')).split('\n')[2]).toBe(
      '- [!] review: Review (after write-report)'
    );
  });

  it('lists several dependencies separated by commas', () => {
    const plan = buildPlan([
      { name: 'A', description: '', depends_on: [] },
      { name: 'B', description: '', depends_on: [] },
      { name: 'C', description: '', depends_on: ['A', 'B'] },
    ]);
    expect(renderPlanForModel(plan).split('\n')[2]).toBe('- [ ] c: C (after a, b)');
  });
});
