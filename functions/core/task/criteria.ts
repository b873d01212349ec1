import { EnvelopeRefusedError } from '../errors.js';
import {
  type AcceptanceCriterion,
  AcceptanceCriterionSchema,
  type CriteriaCount,
  type CriterionEvidence,
  type CriterionRejection,
  type TaskExtension,
} from './extension.schema.js';

/**
 * Acceptance criteria as a contract (pure): a criterion is met with evidence by the agent, found
 * unmet again by a reviewer (a reporter or an admin), or accepted unmet by the participant who
 * completes the task. Who and when are kept on the criterion itself, so the extension says why
 * a task is done.
 */

/** A criterion by its id, or by its position in the list (1-based) when given as digits. */
export const resolveCriterion = (
  criteria: readonly AcceptanceCriterion[],
  reference: string
): AcceptanceCriterion | undefined => {
  const byId = criteria.find((criterion) => criterion.id === reference);
  if (byId !== undefined || !/^\d+$/.test(reference)) return byId;
  return criteria[Number(reference) - 1];
};

export const unmetCriteria = (extension: TaskExtension): AcceptanceCriterion[] =>
  extension.acceptance_criteria.filter((criterion) => !criterion.met);

export const criteriaCount = (extension: TaskExtension): CriteriaCount => ({
  met: extension.acceptance_criteria.filter((criterion) => criterion.met).length,
  total: extension.acceptance_criteria.length,
});

/** `c2 "Cites three sources"`: how a note or an error names a criterion. */
export const criterionLabel = (criterion: AcceptanceCriterion): string =>
  `${criterion.id} ${JSON.stringify(criterion.text)}`;

/** The criteria with the one whose id is `id` replaced (nothing else changes). */
const withCriterion = (
  extension: TaskExtension,
  id: string,
  update: (criterion: AcceptanceCriterion) => AcceptanceCriterion
): TaskExtension => ({
  ...extension,
  acceptance_criteria: extension.acceptance_criteria.map((criterion) =>
    criterion.id === id ? update(criterion) : criterion
  ),
});

/** Met, with the evidence and who met it when; a rejection before it is over. */
export const withCriterionMet = (
  extension: TaskExtension,
  id: string,
  met: { evidence: CriterionEvidence; by: string; at: string }
): TaskExtension =>
  withCriterion(extension, id, (criterion) => ({
    ...criterion,
    met: true,
    evidence: met.evidence,
    met_by: met.by,
    met_at: met.at,
    rejection: null,
  }));

/** Unmet again, with the reviewer's reason; the evidence that did not convince goes with it. */
export const withCriterionRejected = (
  extension: TaskExtension,
  id: string,
  rejection: CriterionRejection
): TaskExtension =>
  withCriterion(extension, id, (criterion) => ({
    ...criterion,
    met: false,
    evidence: null,
    met_by: null,
    met_at: null,
    rejection,
  }));

/**
 * A participant completed the task with criteria unmet: each is recorded as accepted by them
 * (met, by that participant, the evidence saying so), so the completed task says who waived what.
 */
export const withUnmetAccepted = (
  extension: TaskExtension,
  accepted: { by: string; reason: string | null; at: string }
): TaskExtension => ({
  ...extension,
  acceptance_criteria: extension.acceptance_criteria.map((criterion) =>
    criterion.met
      ? criterion
      : {
          ...criterion,
          met: true,
          evidence: {
            text: `accepted unmet by ${accepted.by} on completing the task${accepted.reason === null ? '' : `: ${cut(accepted.reason)}`}`,
            steps: [],
            tasks: [],
            artifacts: [],
          },
          met_by: accepted.by,
          met_at: accepted.at,
          rejection: null,
        }
  ),
});

/** A completion's reason is as long as a participant's answer: the criterion keeps its start. */
const ACCEPTANCE_REASON_LIMIT = 500;
const cut = (text: string) =>
  text.length <= ACCEPTANCE_REASON_LIMIT ? text : `${text.slice(0, ACCEPTANCE_REASON_LIMIT - 1)}…`;

/** What only the harness writes on a criterion: a task envelope can keep it, never change it. */
const MET_STATE_KEYS = ['met', 'evidence', 'met_by', 'met_at', 'rejection'] as const;

const UNMET: Pick<AcceptanceCriterion, (typeof MET_STATE_KEYS)[number]> = {
  met: false,
  evidence: null,
  met_by: null,
  met_at: null,
  rejection: null,
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const numberOf = (id: string): number => Number(/^c(\d+)$/.exec(id)?.[1] ?? 0);

/**
 * The criteria of a task envelope (raw, before the extension is parsed) merged with the task's
 * own. A criterion keeps its met state when it keeps its id, or, given without an id, its text; a
 * new one starts unmet, with the next free `c<n>`. Giving the met state a value other than the
 * one it has is refused, naming each field: criteria are met with meet_criterion (evidence, who,
 * when) and found unmet with reject_criterion, never by editing the list. A client that echoes
 * back the criteria it read changes nothing of their state. Anything that is not a valid criterion
 * is left as it is, for the extension's parse to refuse.
 */
export const criteriaFromEnvelope = (
  current: readonly AcceptanceCriterion[],
  given: unknown
): unknown => {
  if (!Array.isArray(given)) return given;
  const named = new Set(
    given.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : []))
  );
  const unclaimed = current.filter((criterion) => !named.has(criterion.id));
  let next = 1 + Math.max(0, ...[...current.map((c) => c.id), ...named].map(numberOf));
  const refused: string[] = [];
  const merged = given.map((item, index) => {
    const parsed = AcceptanceCriterionSchema.safeParse(item);
    if (!isRecord(item) || !parsed.success) return item;
    let match: AcceptanceCriterion | undefined;
    if (typeof item.id === 'string') {
      match = current.find((criterion) => criterion.id === item.id);
    } else {
      const position = unclaimed.findIndex((criterion) => criterion.text === parsed.data.text);
      match = position === -1 ? undefined : unclaimed.splice(position, 1)[0];
    }
    const state = match ?? UNMET;
    for (const key of MET_STATE_KEYS) {
      if (
        Object.hasOwn(item, key) &&
        JSON.stringify(parsed.data[key]) !== JSON.stringify(state[key])
      )
        refused.push(`acceptance_criteria[${index}].${key}`);
    }
    const id = parsed.data.id ?? match?.id ?? `c${next++}`;
    return { ...item, id, ...Object.fromEntries(MET_STATE_KEYS.map((key) => [key, state[key]])) };
  });
  if (refused.length > 0) {
    throw new EnvelopeRefusedError(refused, {
      why: 'criteria are met with meet_criterion and found unmet with reject_criterion',
    });
  }
  return merged;
};
