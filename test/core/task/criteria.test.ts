import { describe, expect, it } from 'vitest';
import { EnvelopeRefusedError } from '../../../functions/core/errors.js';
import {
  criteriaCount,
  criteriaFromEnvelope,
  resolveCriterion,
  withCriterionMet,
  withCriterionRejected,
  withUnmetAccepted,
} from '../../../functions/core/task/criteria.js';
import { extensionFromEnvelope } from '../../../functions/core/task/envelope.js';
import {
  type AcceptanceCriterion,
  TaskExtensionSchema,
} from '../../../functions/core/task/extension.schema.js';
import { deepFreeze } from '../../support/freeze.js';

const parse = (acceptance_criteria: unknown) =>
  TaskExtensionSchema.safeParse({ name: 'n', goal: 'g', acceptance_criteria });

const extension = (acceptance_criteria: unknown) => {
  const parsed = parse(acceptance_criteria);
  if (!parsed.success) throw parsed.error;
  return deepFreeze(parsed.data);
};

const EVIDENCE = { text: 'shown', steps: [], tasks: [], artifacts: [] };
const AT = '2026-01-01T00:00:00.000Z';

describe('criterion ids', () => {
  it('gives each criterion without one c<position>, skipping ids taken, and keeps them on re-parse', () => {
    const parsed = extension([{ text: 'a' }, { id: 'c1', text: 'b' }, { text: 'c' }]);
    expect(parsed.acceptance_criteria.map((c) => c.id)).toEqual(['c2', 'c1', 'c3']);
    expect(extension(parsed.acceptance_criteria)).toEqual(parsed);
    expect(extension(JSON.parse(JSON.stringify(parsed.acceptance_criteria)))).toEqual(parsed);
  });

  it('refuses two criteria with the same id', () => {
    const parsed = parse([
      { id: 'x', text: 'a' },
      { id: 'x', text: 'b' },
    ]);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('acceptance criterion ids must be unique: x');
  });

  it('resolves a criterion by id, or by its 1-based position as digits', () => {
    const { acceptance_criteria: criteria } = extension([{ text: 'a' }, { id: '7', text: 'b' }]);
    expect(resolveCriterion(criteria, 'c1')?.text).toBe('a');
    expect(resolveCriterion(criteria, '7')?.text).toBe('b');
    expect(resolveCriterion(criteria, '2')?.text).toBe('b');
    expect(resolveCriterion(criteria, '3')).toBeUndefined();
    expect(resolveCriterion(criteria, 'c9')).toBeUndefined();
  });
});

describe('meeting, rejecting and accepting', () => {
  it('meets, rejects and meets again, each with who and when; the count follows', () => {
    const start = extension([{ text: 'a' }, { text: 'b' }]);
    const met = withCriterionMet(start, 'c1', { evidence: EVIDENCE, by: 'agent', at: AT });
    expect(criteriaCount(met)).toEqual({ met: 1, total: 2 });
    expect(met.acceptance_criteria[0]).toMatchObject({ met: true, met_by: 'agent', met_at: AT });

    const rejection = { by: 'alice', reason: 'not shown', at: AT };
    const rejected = withCriterionRejected(met, 'c1', rejection);
    expect(rejected.acceptance_criteria[0]).toEqual({
      id: 'c1',
      text: 'a',
      met: false,
      evidence: null,
      met_by: null,
      met_at: null,
      rejection,
    });
    const again = withCriterionMet(rejected, 'c1', { evidence: EVIDENCE, by: 'agent', at: AT });
    expect(again.acceptance_criteria[0]?.rejection).toBeNull();
  });

  it("accepts the unmet criteria in the completer's name, leaving met ones as they were", () => {
    const start = withCriterionMet(extension([{ text: 'a' }, { text: 'b' }]), 'c1', {
      evidence: EVIDENCE,
      by: 'agent',
      at: AT,
    });
    const accepted = withUnmetAccepted(start, { by: 'alice', reason: null, at: AT });
    expect(accepted.acceptance_criteria[0]).toEqual(start.acceptance_criteria[0]);
    expect(accepted.acceptance_criteria[1]).toMatchObject({
      met: true,
      met_by: 'alice',
      evidence: { text: 'accepted unmet by alice on completing the task' },
    });
  });
});

describe('criteria in a task envelope', () => {
  const current: AcceptanceCriterion[] = withCriterionMet(
    extension([{ text: 'a' }, { text: 'b' }]),
    'c1',
    { evidence: EVIDENCE, by: 'agent', at: AT }
  ).acceptance_criteria;

  it('keeps the met state of a criterion given back by id or by text, whatever the order', () => {
    const merged = criteriaFromEnvelope(current, [
      { text: 'b' },
      { id: 'c1', text: 'a, reworded' },
    ]);
    expect(merged).toEqual([
      { ...current[1], text: 'b' },
      { ...current[0], text: 'a, reworded' },
    ]);
  });

  it('gives a new criterion the next free id, unmet, and drops the criteria left out', () => {
    const merged = criteriaFromEnvelope(current, [current[0], { text: 'c' }]) as object[];
    expect(merged).toHaveLength(2);
    expect(merged[1]).toMatchObject({ id: 'c3', text: 'c', met: false, met_by: null });
  });

  it('accepts the met state echoed back as it is', () => {
    expect(criteriaFromEnvelope(current, JSON.parse(JSON.stringify(current)))).toEqual(current);
  });

  it('refuses a met state other than the one a criterion has, naming every field', () => {
    const attempt = () =>
      criteriaFromEnvelope(current, [
        { id: 'c1', text: 'a', met: false },
        { text: 'b', met: true, met_by: 'mallory' },
      ]);
    expect(attempt).toThrow(EnvelopeRefusedError);
    expect(attempt).toThrow(
      'task envelope cannot change acceptance_criteria[0].met, acceptance_criteria[1].met, acceptance_criteria[1].met_by'
    );
  });

  it('refuses criteria that arrive met on a new task', () => {
    expect(() =>
      extensionFromEnvelope(
        { name: 'n', goal: 'g', acceptance_criteria: [{ text: 'a', met: true }] },
        { sender: 'alice', agentId: 'tiny-harness' }
      )
    ).toThrow(EnvelopeRefusedError);
  });

  it('leaves what is not a valid criterion to the parse, which refuses it', () => {
    const invalid = [{ text: 'a', met: 'yes' }, 42];
    expect(criteriaFromEnvelope(current, invalid)).toEqual(invalid);
    expect(criteriaFromEnvelope(current, 'none')).toBe('none');
  });
});
