import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../../functions/core/plan/plan.js';
import { TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import { parseExtension } from '../../../functions/core/task/extension-reading.js';

const rows = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    task_id: `child-${index + 1}`,
    agent: null,
    state: 'TASK_STATE_COMPLETED',
    sub_state: null,
    criteria: null,
  }));

const stored = () => ({
  name: 'Trip',
  goal: 'Plan a trip',
  participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
  sub_tasks: Object.freeze(rows(3)),
  plan: buildPlan([
    { name: 'Gather', description: 'ideas', depends_on: [] },
    { name: 'Choose', description: 'one', depends_on: ['Gather'] },
  ]),
  lifecycle: 'delegated',
  forks: ['fork-1'],
});

describe('reading a stored task extension', () => {
  it('reads as one parse of the whole schema would, members in the same order', () => {
    const value = stored();
    const read = parseExtension(value);
    expect(read.issues).toBeUndefined();
    expect(JSON.stringify(read.extension)).toBe(JSON.stringify(TaskExtensionSchema.parse(value)));
    const bare = { name: 'Chat', goal: 'talk' };
    expect(JSON.stringify(parseExtension(bare).extension)).toBe(
      JSON.stringify(TaskExtensionSchema.parse(bare))
    );
  });

  it('reads the same rows and plan once, whatever extension holds them', () => {
    const value = stored();
    const first = parseExtension(value).extension;
    const second = parseExtension({ ...value, goal: 'Plan another trip' }).extension;
    expect(second?.goal).toBe('Plan another trip');
    expect(second?.sub_tasks).toBe(first?.sub_tasks);
    expect(second?.plan).toBe(first?.plan);
    // A reading's members read as themselves.
    expect(parseExtension({ ...value, sub_tasks: first?.sub_tasks }).extension?.sub_tasks).toBe(
      first?.sub_tasks
    );
  });

  it('counts the issues of every member, and refuses unknown ones', () => {
    const value = stored();
    expect(parseExtension({ ...value, goal: '', sub_tasks: [{ task_id: 1 }] }).issues).toBe(
      TaskExtensionSchema.safeParse({ ...value, goal: '', sub_tasks: [{ task_id: 1 }] }).error
        ?.issues.length
    );
    expect(parseExtension({ ...value, surprise: true }).issues).toBeGreaterThan(0);
    expect(parseExtension(null).issues).toBeGreaterThan(0);
    expect(parseExtension([]).issues).toBeGreaterThan(0);
  });
});
