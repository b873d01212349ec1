/**
 * Walks an ASL definition, nested Map (`ItemProcessor`/`Iterator`) and Parallel branches
 * included, and describes each Task state: what it calls and whether it is a callback
 * (`.waitForTaskToken`) state. The interpreter keys its Task overrides by state name across the
 * whole machine, so this is the list the local runtime must cover completely.
 */

export type AslState = Record<string, unknown> & { Type?: unknown };
export interface AslMachine {
  StartAt: string;
  States: Record<string, AslState>;
  [other: string]: unknown;
}

export interface VisitedState {
  name: string;
  state: AslState;
  /** True for the machine's own states; false inside a Map iteration or a Parallel branch. */
  topLevel: boolean;
}

/** How the local runtime presents a Task state to its handler and in the execution history. */
export type TaskKind =
  /** `arn:aws:states:::lambda:invoke[...]`: the handler gets `Payload`; results get the envelope. */
  | 'lambda-invoke'
  /** `Resource` is a function ARN (CDK `payloadResponseOnly`): input and result pass as they are. */
  | 'lambda-function'
  /** Any other integration (`dynamodb:putItem`, `states:startExecution.sync:2`, an activity...). */
  | 'service';

export interface TaskStateInfo {
  stateName: string;
  topLevel: boolean;
  resource: string;
  kind: TaskKind;
  callback: boolean;
  /** The function the state calls when static: the Resource ARN or `Parameters.FunctionName`. */
  functionName?: string;
  /** GetExecutionHistory's `resourceType`/`resource`, e.g. `lambda` / `invoke.waitForTaskToken`. */
  resourceType: string;
  resourceName: string;
  timeoutSeconds?: number;
  timeoutSecondsPath?: string;
  heartbeatSeconds?: number;
  heartbeatSecondsPath?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function isAslMachine(value: unknown): value is AslMachine {
  return isRecord(value) && typeof value.StartAt === 'string' && isRecord(value.States);
}

/** Every state, depth first, nested machines included. */
export function visitStates(machine: AslMachine, topLevel = true): VisitedState[] {
  const out: VisitedState[] = [];
  for (const [name, state] of Object.entries(machine.States)) {
    out.push({ name, state, topLevel });
    const nested: unknown[] = [];
    if (state.Type === 'Map') nested.push(state.ItemProcessor ?? state.Iterator);
    if (state.Type === 'Parallel' && Array.isArray(state.Branches)) nested.push(...state.Branches);
    for (const child of nested) {
      if (isAslMachine(child)) out.push(...visitStates(child, false));
    }
  }
  return out;
}

const LAMBDA_FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[^:]*:[^:]*:function:/;
const OPTIMISED_INTEGRATION = /^arn:aws[a-z-]*:states:::(.+)$/;

const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

export function describeTask(name: string, state: AslState, topLevel: boolean): TaskStateInfo {
  const resource = str(state.Resource) ?? '';
  const callback = resource.endsWith('.waitForTaskToken');
  const integration = OPTIMISED_INTEGRATION.exec(resource)?.[1];
  const params = isRecord(state.Parameters) ? state.Parameters : {};
  let kind: TaskKind = 'service';
  let functionName: string | undefined;
  let resourceType = 'unknown';
  let resourceName = resource;
  if (LAMBDA_FUNCTION_ARN.test(resource)) {
    kind = 'lambda-function';
    functionName = resource;
    resourceType = 'lambda';
  } else if (integration) {
    const [service = '', ...rest] = integration.split(':');
    resourceType = service;
    resourceName = rest.join(':');
    if (service === 'lambda' && resourceName.startsWith('invoke')) {
      kind = 'lambda-invoke';
      functionName = str(params.FunctionName);
    }
  } else if (/:activity:/.test(resource)) {
    resourceType = 'activity';
  }
  return {
    stateName: name,
    topLevel,
    resource,
    kind,
    callback,
    ...(functionName === undefined ? {} : { functionName }),
    resourceType,
    resourceName,
    ...optional('timeoutSeconds', num(state.TimeoutSeconds)),
    ...optional('timeoutSecondsPath', str(state.TimeoutSecondsPath)),
    ...optional('heartbeatSeconds', num(state.HeartbeatSeconds)),
    ...optional('heartbeatSecondsPath', str(state.HeartbeatSecondsPath)),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** Every Task state of the machine, nested ones included. */
export function listTaskStates(machine: AslMachine): TaskStateInfo[] {
  return visitStates(machine)
    .filter(({ state }) => state.Type === 'Task')
    .map(({ name, state, topLevel }) => describeTask(name, state, topLevel));
}

/**
 * Features the interpreter accepts but silently ignores (measured): JSONata and variables. A
 * machine using them would run wrong locally, so refuse it up front.
 */
export function unsupportedFeatures(machine: AslMachine): string[] {
  const problems: string[] = [];
  if (machine.QueryLanguage === 'JSONata') problems.push('QueryLanguage JSONata (machine)');
  for (const { name, state } of visitStates(machine)) {
    if (state.QueryLanguage === 'JSONata') problems.push(`QueryLanguage JSONata (${name})`);
    if ('Assign' in state) problems.push(`Assign (${name})`);
  }
  return problems;
}
