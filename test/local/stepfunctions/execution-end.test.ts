import type { DescribeExecutionOutput } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { LocalStepFunctions } from '../../../functions/local/stepfunctions/engine.js';

/** One Task state that fails when its input says so, and one that parks on a task token. */
const definition = {
  StartAt: 'Step',
  States: {
    Step: {
      Type: 'Task',
      Resource: 'arn:aws:lambda:us-east-1:000000000000:function:Step',
      End: true,
    },
  },
};
const parking = {
  StartAt: 'Park',
  States: {
    Park: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { FunctionName: 'ParkFn', Payload: { 'token.$': '$$.Task.Token' } },
      End: true,
    },
  },
};

const engineTelling = (ends: DescribeExecutionOutput[]) => {
  const engine = new LocalStepFunctions({ onExecutionEnd: (execution) => ends.push(execution) });
  const { stateMachineArn } = engine.createStateMachine({
    name: 'steps',
    definition,
    taskHandlers: {
      Step: (input) => {
        if ((input as { fail?: boolean }).fail)
          throw Object.assign(new Error('boom'), { name: 'Boom' });
        return { ok: true };
      },
    },
  });
  const parked = engine.createStateMachine({
    name: 'parks',
    definition: parking,
    taskHandlers: { Park: () => ({}) },
  });
  return { engine, stateMachineArn, parkingArn: parked.stateMachineArn };
};

describe('the local engine tells of each execution that ends, as EventBridge does', () => {
  it('tells of a failed, a succeeded and a stopped execution, with status, error and cause', async () => {
    const ends: DescribeExecutionOutput[] = [];
    const { engine, stateMachineArn, parkingArn } = engineTelling(ends);
    try {
      const failed = engine.startExecution({
        stateMachineArn,
        name: 'f-g1',
        input: '{"fail":true}',
      });
      const succeeded = engine.startExecution({ stateMachineArn, name: 's-g1', input: '{}' });
      await engine.waitForExecution(failed.executionArn);
      await engine.waitForExecution(succeeded.executionArn);
      const parked = engine.startExecution({ stateMachineArn: parkingArn, name: 'p-g1' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      engine.stopExecution({ executionArn: parked.executionArn, cause: 'by hand' });
      await new Promise((resolve) => setTimeout(resolve, 0));

      const byName = Object.fromEntries(ends.map((end) => [end.name, end]));
      expect(Object.keys(byName).sort()).toEqual(['f-g1', 'p-g1', 's-g1']);
      expect(byName['f-g1']).toMatchObject({ status: 'FAILED', error: 'Boom' });
      expect(byName['s-g1']).toMatchObject({ status: 'SUCCEEDED' });
      expect(byName['p-g1']).toMatchObject({ status: 'ABORTED', cause: 'by hand' });
    } finally {
      await engine.close();
    }
  });

  it('tells nothing of an execution its own shutdown halts (the next process resumes it)', async () => {
    const ends: DescribeExecutionOutput[] = [];
    const { engine, parkingArn } = engineTelling(ends);
    engine.startExecution({ stateMachineArn: parkingArn, name: 'p-g1' });
    await new Promise((resolve) => setTimeout(resolve, 100));

    await engine.close();
    await new Promise((resolve) => setTimeout(resolve, 0));

    expect(ends).toEqual([]);
  });
});
