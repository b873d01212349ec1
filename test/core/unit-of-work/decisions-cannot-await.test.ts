import { describe, expect, it } from 'vitest';
import { runOperation } from '../../../functions/core/unit-of-work/interpreter.js';
import { answer, type Operation } from '../../../functions/core/unit-of-work/operation.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

describe('a decision cannot await', () => {
  it('does not type-check as a decision, and is refused when one slips through', async () => {
    const { harness } = harnessWith([]);
    const { task } = await harness.start(textMessage(''), ALICE);
    const operation: Operation<string> = {
      taskId: task.id,
      // @ts-expect-error: a decision answers an outcome, never a promise of one (the type check fails if this compiles).
      decide: async () => answer('late'),
    };
    await expect(runOperation(harness.deps, operation)).rejects.toThrow('decisions cannot await');
  });
});
