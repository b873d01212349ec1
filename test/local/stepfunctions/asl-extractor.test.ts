import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractStateMachines } from '../../../functions/local/stepfunctions/asl-extractor.js';
import {
  type AslMachine,
  listTaskStates,
} from '../../../functions/local/stepfunctions/asl-walk.js';
import type { CloudFormationTemplate } from '../../../functions/local/stepfunctions/cfn-intrinsics.js';
import { LocalStepFunctions } from '../../../functions/local/stepfunctions/engine.js';
import type { TaskHandler } from '../../../functions/local/stepfunctions/types.js';

const template = JSON.parse(
  readFileSync(new URL('./fixtures/cdk-stack.template.json', import.meta.url), 'utf8')
) as CloudFormationTemplate;

const lambdaArn = (id: string) => `arn:aws:lambda:us-east-1:000000000000:function:${id}`;

describe('extractStateMachines', () => {
  const machines = extractStateMachines(template);
  const byId = new Map(machines.map((m) => [m.logicalId, m]));

  it('finds every state machine with its name and construct path', () => {
    expect(machines.map((m) => [m.logicalId, m.name, m.constructPath])).toEqual([
      ['TurnMachine9E8D7C6B', 'local-turns', 'TinyHarness/TurnMachine'],
      ['ToolMachineF00DBABE', 'ToolMachineF00DBABE', 'TinyHarness/ToolMachine'],
    ]);
  });

  it('resolves Fn::Join, Fn::GetAtt and Ref (resources and pseudo parameters)', () => {
    const turn = byId.get('TurnMachine9E8D7C6B')!;
    const states = turn.definition.States;
    expect(states.AgentStep).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: lambdaArn('AgentFn6B0F5D6A'), 'Payload.$': '$' },
    });
    expect(states.ParkForInput).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: lambdaArn('ParkFnC1A0F2B4'),
        Payload: {
          'taskToken.$': '$$.Task.Token',
          table: 'TasksTable7F3D2A10',
          region: 'us-east-1',
        },
      },
      TimeoutSeconds: 3600,
      HeartbeatSeconds: 600,
    });
    expect(turn.lambdaRefs).toEqual({
      [lambdaArn('AgentFn6B0F5D6A')]: 'AgentFn6B0F5D6A',
      [lambdaArn('ParkFnC1A0F2B4')]: 'ParkFnC1A0F2B4',
    });
  });

  it('applies DefinitionSubstitutions, resolving Fn::Sub and Ref to a function name', () => {
    const tools = byId.get('ToolMachineF00DBABE')!;
    const { definition } = tools;
    const processor = definition.States.RunTools?.ItemProcessor as AslMachine;
    expect(processor.States.RunTool?.Resource).toBe(lambdaArn('ToolFn9A8B7C6D'));
    expect(definition.States.Record?.Parameters).toEqual({
      FunctionName: 'RecordFn1234ABCD',
      Payload: { table: 'TasksTable7F3D2A10-in-us-east-1', 'results.$': '$' },
    });
    expect(tools.lambdaRefs).toEqual({
      [lambdaArn('ToolFn9A8B7C6D')]: 'ToolFn9A8B7C6D',
      RecordFn1234ABCD: 'RecordFn1234ABCD',
    });
  });

  it('maps every Task state, nested ones included, to its Lambda logical id', () => {
    const routes = machines.flatMap((machine) =>
      listTaskStates(machine.definition).map((task) => [
        task.stateName,
        task.kind,
        task.callback,
        machine.lambdaRefs[task.functionName ?? ''],
      ])
    );
    expect(routes).toEqual([
      ['AgentStep', 'lambda-invoke', false, 'AgentFn6B0F5D6A'],
      ['ParkForInput', 'lambda-invoke', true, 'ParkFnC1A0F2B4'],
      ['RunTool', 'lambda-function', false, 'ToolFn9A8B7C6D'],
      ['Record', 'lambda-invoke', false, 'RecordFn1234ABCD'],
    ]);
  });

  it('honours account options', () => {
    const [turn] = extractStateMachines(template, {
      account: { region: 'eu-west-1', accountId: '123456789012', stackName: 'TinyHarness' },
    });
    expect(turn!.name).toBe('TinyHarness-turns');
    expect(Object.keys(turn!.lambdaRefs)).toContain(
      'arn:aws:lambda:eu-west-1:123456789012:function:AgentFn6B0F5D6A'
    );
  });

  it('refuses what it cannot resolve, naming where', () => {
    const broken: CloudFormationTemplate = {
      Resources: {
        M: {
          Type: 'AWS::StepFunctions::StateMachine',
          Properties: { DefinitionString: { 'Fn::If': ['IsProd', '{}', '{}'] } },
        },
        N: {
          Type: 'AWS::StepFunctions::StateMachine',
          Properties: {
            DefinitionString: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Missing', 'Arn'] }]] },
          },
        },
      },
    };
    expect(() => extractStateMachines({ Resources: { M: broken.Resources!.M! } })).toThrow(
      /Resources\.M\.Properties\.DefinitionString\.Fn::If: unsupported intrinsic Fn::If/
    );
    expect(() => extractStateMachines({ Resources: { N: broken.Resources!.N! } })).toThrow(
      /"Missing"/
    );
  });
});

describe('an extracted machine', () => {
  it('runs unchanged on the local engine, handlers chosen through lambdaRefs', async () => {
    const turn = extractStateMachines(template).find((m) => m.logicalId === 'TurnMachine9E8D7C6B')!;
    const tokens: string[] = [];
    let step = 0;
    const byFunction: Record<string, TaskHandler> = {
      AgentFn6B0F5D6A: (input) => ({ ...(input as object), next: step++ === 0 ? 'park' : 'done' }),
      ParkFnC1A0F2B4: (input, ctx) => {
        expect(input).toMatchObject({ taskToken: ctx.taskToken, table: 'TasksTable7F3D2A10' });
        tokens.push(ctx.taskToken!);
      },
    };
    const taskHandlers = Object.fromEntries(
      listTaskStates(turn.definition).map((task) => [
        task.stateName,
        byFunction[turn.lambdaRefs[task.functionName ?? ''] ?? '']!,
      ])
    );
    const engine = new LocalStepFunctions();
    try {
      const { stateMachineArn } = engine.createStateMachine({
        name: 'turn',
        definition: turn.definition,
        taskHandlers,
      });
      const { executionArn } = engine.startExecution({
        stateMachineArn,
        input: '{"taskId":"t-1"}',
      });
      while (tokens.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      engine.sendTaskSuccess({ taskToken: tokens[0]!, output: '{"text":"hi"}' });
      const done = await engine.waitForExecution(executionArn);
      expect([done.status, JSON.parse(done.output!)]).toEqual([
        'SUCCEEDED',
        { next: 'done', taskId: 't-1' },
      ]);
    } finally {
      await engine.close();
    }
  });
});
