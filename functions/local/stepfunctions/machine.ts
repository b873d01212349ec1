/**
 * A state machine made ready to run locally: its definition checked (every Task state has a
 * handler, no feature the interpreter would silently ignore), its timeouts prepared, and the
 * interpreter's `StateMachine` built once (validation costs about 0.1 s per construction).
 */
import { type RunOptions, StateMachine } from 'aws-local-stepfunctions';
import {
  type AslMachine,
  type AslState,
  isAslMachine,
  listTaskStates,
  type TaskStateInfo,
  unsupportedFeatures,
  visitStates,
} from './asl-walk.js';
import { prepareDefinition } from './prepare-definition.js';
import { SfnServiceError } from './sfn-errors.js';
import type { TaskHandler } from './types.js';

export interface CreateStateMachineInput {
  name: string;
  definition: object;
  /** One handler per Task state name, nested Map/Parallel states included. */
  taskHandlers: Record<string, TaskHandler>;
  roleArn?: string;
  /** Passed to the interpreter: milliseconds instead of the Retry backoff (tests). */
  retryIntervalOverrides?: NonNullable<RunOptions['overrides']>['retryIntervalOverrides'];
  /** Passed to the interpreter: milliseconds instead of a Wait state's duration (tests). */
  waitTimeOverrides?: NonNullable<RunOptions['overrides']>['waitTimeOverrides'];
}

export interface CompiledMachine {
  arn: string;
  name: string;
  roleArn: string;
  creationDate: Date;
  definition: AslMachine;
  tasks: readonly TaskStateInfo[];
  states: ReadonlyMap<string, AslState>;
  handlers: Readonly<Record<string, TaskHandler>>;
  overrides: Pick<
    NonNullable<RunOptions['overrides']>,
    'retryIntervalOverrides' | 'waitTimeOverrides'
  >;
  interpreter: StateMachine;
  /** The machine started at a parked state, for rehydration (built on first use). */
  startingAt(stateName: string): StateMachine;
}

const NAME = /^[A-Za-z0-9_-]{1,80}$/;

export function compileMachine(
  input: CreateStateMachineInput,
  arn: string,
  roleArn: string
): CompiledMachine {
  if (!NAME.test(input.name))
    throw new SfnServiceError('InvalidName', `Invalid Name: '${input.name}'`);
  const definition = input.definition;
  if (!isAslMachine(definition)) {
    throw new SfnServiceError('InvalidDefinition', 'The definition needs StartAt and States');
  }
  const unsupported = unsupportedFeatures(definition);
  if (unsupported.length > 0) {
    throw new SfnServiceError(
      'InvalidDefinition',
      `aws-local-stepfunctions ignores these silently, so they cannot run locally: ${unsupported.join(', ')}`
    );
  }
  const tasks = listTaskStates(definition);
  const missing = tasks.filter((task) => !input.taskHandlers[task.stateName]);
  if (missing.length > 0) {
    // Without a local handler the interpreter would call the real AWS Lambda API.
    throw new Error(
      `State machine ${input.name}: no task handler for Task state(s) ${missing.map((t) => t.stateName).join(', ')}`
    );
  }
  const taskNames = new Set(tasks.map((task) => task.stateName));
  const unknown = Object.keys(input.taskHandlers).filter((name) => !taskNames.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `State machine ${input.name}: handlers for unknown Task state(s) ${unknown.join(', ')}`
    );
  }
  const prepared = prepareDefinition(definition);
  let interpreter: StateMachine;
  try {
    interpreter = new StateMachine(prepared as never, {
      validationOptions: { checkArn: true, checkPaths: true },
    });
  } catch (error) {
    throw new SfnServiceError('InvalidDefinition', (error as Error).message);
  }
  const resumable = new Map<string, StateMachine>();
  return {
    arn,
    name: input.name,
    roleArn,
    creationDate: new Date(),
    definition,
    tasks,
    states: new Map(visitStates(definition).map(({ name, state }) => [name, state])),
    handlers: { ...input.taskHandlers },
    overrides: {
      ...(input.retryIntervalOverrides
        ? { retryIntervalOverrides: input.retryIntervalOverrides }
        : {}),
      ...(input.waitTimeOverrides ? { waitTimeOverrides: input.waitTimeOverrides } : {}),
    },
    interpreter,
    startingAt(stateName) {
      let machine = resumable.get(stateName);
      if (!machine) {
        // Validated above as a whole; started elsewhere some states are unreachable, which the
        // validator would refuse.
        machine = new StateMachine({ ...prepared, StartAt: stateName } as never, {
          validationOptions: { noValidate: true },
        });
        resumable.set(stateName, machine);
      }
      return machine;
    },
  };
}
