import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import type { Outcome, Wants } from '../../../functions/core/unit-of-work/operation.js';

/**
 * What a decision came to, in a shape a table can state: the effects it needs (`key:kind`), the
 * checkpoint it reached, or its answer; and the kind of commit it asks for (null: none).
 */
export const summary = <T, W extends Wants, C>(outcome: Outcome<T, W, C>, record: TaskRecord) => {
  switch (outcome.kind) {
    case 'need':
      return { needs: outcome.needs.map(({ key, effect }) => `${key}:${effect.kind}`) };
    case 'checkpoint':
      return { reached: outcome.reached, commit: outcome.commit?.kind ?? null };
    case 'done': {
      // The record the operation leaves: as its update writes it (the store advances the
      // version by one), or as it was read.
      const left =
        outcome.commit?.kind === 'update'
          ? { ...outcome.commit.record, version: outcome.commit.base.version + 1 }
          : record;
      return {
        answer: outcome.resultOn === undefined ? outcome.result : outcome.resultOn(left, []),
        commit: outcome.commit?.kind ?? null,
      };
    }
  }
};

/** The record a decision's commit would write (an update's), to read what it decided. */
export const written = <T, W extends Wants, C>(outcome: Outcome<T, W, C>): TaskRecord => {
  if (outcome.kind === 'need' || outcome.commit?.kind !== 'update') {
    throw new Error(`expected an update, got ${JSON.stringify(outcome.kind)}`);
  }
  return outcome.commit.record;
};
