/**
 * No principal lacks a permission its handler's code calls, and none holds a table action its
 * code does not send. Each handler is bundled as `cdk synth` bundles it (cdk/lambda-bundle.ts);
 * the AWS SDK commands its code can send (constructed in its own sources, and left in the bundle
 * by tree-shaking) are held against a table of the calls each handler makes, and the table
 * against the synthesized policy of the handler's role, both ways for DynamoDB.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleHandler } from '../../cdk/lambda-bundle.js';
import { MODEL_PROVIDERS } from '../../functions/composition/model-config.js';
import { logicalIdAt, statementsOfRole, synthHarness } from './support/synth.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The IAM actions an SDK command needs (a transaction: each kind of item write it may hold). */
const ACTIONS_OF_COMMAND: Record<string, string[]> = {
  GetItem: ['dynamodb:GetItem'],
  BatchGetItem: ['dynamodb:BatchGetItem'],
  Query: ['dynamodb:Query'],
  Scan: ['dynamodb:Scan'],
  PutItem: ['dynamodb:PutItem'],
  UpdateItem: ['dynamodb:UpdateItem'],
  DeleteItem: ['dynamodb:DeleteItem'],
  TransactWriteItems: [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  StartExecution: ['states:StartExecution'],
  SendTaskSuccess: ['states:SendTaskSuccess'],
  SendTaskFailure: ['states:SendTaskFailure'],
  StopExecution: ['states:StopExecution'],
  DescribeExecution: ['states:DescribeExecution'],
  GetExecutionHistory: ['states:GetExecutionHistory'],
  Encrypt: ['kms:Encrypt'],
  Decrypt: ['kms:Decrypt'],
  GetSecretValue: ['secretsmanager:GetSecretValue'],
  // The Converse API is authorized as InvokeModel.
  Converse: ['bedrock:InvokeModel'],
};

/** What only the local runtime calls (table setup, the stream poller): no Lambda sends these. */
const LOCAL_ONLY = new Set([
  'CreateTable',
  'DescribeTable',
  'ListTables',
  'DescribeTimeToLive',
  'UpdateTimeToLive',
  'DescribeStream',
  'GetShardIterator',
  'GetRecords',
]);

const TABLE_READS = ['GetItem', 'BatchGetItem', 'Query'];
const TABLE_WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems'];
/** A task's writes: its commits (a transaction), its records' puts and updates. */
const TASK_WRITES = ['PutItem', 'UpdateItem', 'TransactWriteItems'];

/**
 * What a bundle holds but its handler never sends: each function builds only the parts it uses
 * (functions/composition/lambda/), but a part's adapter is a whole class, and a bundle's commands
 * are what it *can* send. Each command a handler does not make is listed here with the reason; a
 * new one fails the test until someone decides.
 */
const NOT_CALLED = {
  stop: {
    commands: ['StopExecution'],
    why: 'only the A2A service cuts or cancels a running turn',
  },
  describe: {
    commands: ['DescribeExecution'],
    why: "only following a wake asks whether an execution runs (to revive a task whose execution is gone): the A2A service's and the stream stand-in's",
  },
  sendTaskFailure: {
    commands: ['SendTaskFailure'],
    why: 'TurnExecutions.fail exists for the port; no operation calls it',
  },
  scan: { commands: ['Scan'], why: 'no operation of the deployed runtime scans the table' },
  resume: {
    commands: ['SendTaskSuccess'],
    why: 'the reconciler starts generations; the execution it hears of has ended, tokens and all',
  },
  seal: {
    commands: ['Encrypt'],
    why: 'delivery opens push configs; only the A2A function seals them',
  },
  storeWrites: {
    commands: TABLE_WRITES,
    why: 'push delivery only reads the task and its configs (the stores it reads them from can write)',
  },
} as const;

type Reason = keyof typeof NOT_CALLED;

/**
 * What following a remote child calls (its follow step and the push webhook alike): the table,
 * waking its parent as the stand-in does, and the agent's credentials.
 */
const REMOTE_CHILDREN: { calls: string[]; notCalled: Reason[] } = {
  calls: [
    ...TABLE_READS,
    ...TASK_WRITES,
    'StartExecution',
    'SendTaskSuccess',
    'DescribeExecution',
    'GetSecretValue',
  ],
  notCalled: ['stop', 'sendTaskFailure', 'scan'],
};

/**
 * The calls each handler makes, by construct path, and what its bundle holds that it never
 * sends. Written out, so a new call is a decision: the test below fails when a bundle can send a
 * command this table does not account for.
 */
const CALLS: Record<string, { entry: string; calls: string[]; notCalled: Reason[] }> = {
  TurnStepFunction: {
    entry: 'turn-step',
    calls: [
      ...TABLE_READS,
      ...TASK_WRITES,
      'StartExecution',
      'SendTaskSuccess',
      'Converse',
      'GetSecretValue',
    ],
    notCalled: ['stop', 'describe', 'sendTaskFailure', 'scan'],
  },
  // A tool call: a sub-task started, a remote child created with its agent's credentials.
  ToolStepFunction: {
    entry: 'tool-step',
    calls: [...TABLE_READS, ...TASK_WRITES, 'StartExecution', 'SendTaskSuccess', 'GetSecretValue'],
    notCalled: ['stop', 'describe', 'sendTaskFailure', 'scan'],
  },
  StreamFunction: {
    entry: 'stream',
    calls: [
      ...TABLE_READS,
      ...TASK_WRITES,
      'StartExecution',
      'SendTaskSuccess',
      'DescribeExecution',
    ],
    notCalled: ['stop', 'sendTaskFailure', 'scan'],
  },
  RemoteFollowFunction: { entry: 'remote-follow', ...REMOTE_CHILDREN },
  RemotePushFunction: { entry: 'remote-push', ...REMOTE_CHILDREN },
  'RemoteAgentsRegistration/Function': {
    entry: 'register-remote-agents',
    calls: [],
    notCalled: [],
  },
  A2aFunction: {
    entry: 'a2a',
    calls: [
      ...TABLE_READS,
      ...TABLE_WRITES,
      'StartExecution',
      'SendTaskSuccess',
      'StopExecution',
      'DescribeExecution',
      'GetExecutionHistory',
      'Encrypt',
      'Decrypt',
    ],
    notCalled: ['sendTaskFailure', 'scan'],
  },
  PushFunction: {
    entry: 'push',
    calls: [...TABLE_READS, 'Decrypt'],
    notCalled: ['seal', 'scan', 'storeWrites'],
  },
  ReconcileFunction: {
    entry: 'reconcile',
    calls: [...TABLE_READS, ...TASK_WRITES, 'StartExecution'],
    notCalled: ['stop', 'describe', 'sendTaskFailure', 'scan', 'resume'],
  },
  // The migration at deployment: it scans for whole records and commits each as read.
  'RecordMigration/MigrationFunction': {
    entry: 'migrate',
    calls: [...TABLE_READS, 'Scan', ...TASK_WRITES],
    notCalled: [],
  },
  'AuditArchive/ArchiveFunction': {
    entry: 'archive',
    calls: ['Query', 'PutItem', 'GetExecutionHistory'],
    notCalled: [],
  },
};

/**
 * The SDK commands a handler's bundle can send: `new <Name>Command(` in its own sources, of a
 * command class left in the bundle (kept by name: the bundle is built with keepNames). The turn
 * step is bundled for each provider it may be deployed with: its calls are theirs together.
 */
const commandsInBundle = async (entry: string): Promise<Set<string>> => {
  const providers =
    entry === 'turn-step' ? MODEL_PROVIDERS.filter((provider) => provider !== 'scripted') : [];
  const bundles = await Promise.all(
    providers.length === 0
      ? [bundleHandler(entry)]
      : providers.map((modelProvider) => bundleHandler(entry, { modelProvider }))
  );
  const commands = new Set<string>();
  for (const bundle of bundles) {
    const code = new TextDecoder().decode(bundle.code);
    const kept = new Set([...code.matchAll(/"(\w+)Command"/g)].map((match) => match[1]));
    const [output] = Object.values(bundle.metafile.outputs).filter((o) => o.entryPoint);
    for (const [input, { bytesInOutput }] of Object.entries(output!.inputs)) {
      if (!input.startsWith('functions/') || bytesInOutput === 0) continue;
      for (const match of readFileSync(`${ROOT}${input}`, 'utf8').matchAll(/new (\w+)Command\(/g)) {
        if (kept.has(match[1])) commands.add(match[1] as string);
      }
    }
  }
  return commands;
};

/**
 * The table's stream is read by the event source mapping with the function's role (the stream
 * and push consumers): actions no bundle sends, on the stream alone.
 */
const readsTheStream = (statement: { resources: string[] }): boolean =>
  statement.resources.every((resource) => resource.endsWith('.StreamArn>'));

const LEDGER_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ledger-token-AbCdEf';

// Every secret permission in play: the model's (Bedrock, a key secret and its KMS key) and a
// remote agent's bearer token.
const { template } = synthHarness({
  modelProvider: 'bedrock',
  model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  modelApiKeySecret: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:model-key-AbCdEf',
  modelApiKeySecretKmsKey:
    'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  remoteAgents: JSON.stringify({
    ledger: {
      card: 'https://ledger.example.com/.well-known/agent-card.json',
      auth: { type: 'bearer', token: { secretArn: LEDGER_SECRET } },
    },
  }),
});

describe('every call a handler makes is allowed to its role', () => {
  it.each(Object.entries(CALLS))(
    '%s: the table accounts for every command its bundle can send',
    async (id, { entry, calls, notCalled }) => {
      const sent = [...(await commandsInBundle(entry))].filter(
        (command) => !LOCAL_ONLY.has(command)
      );
      const excused = new Set<string>(notCalled.flatMap((reason) => NOT_CALLED[reason].commands));
      const unlisted = sent.filter((command) => !calls.includes(command) && !excused.has(command));
      expect(unlisted, `${id} can send commands its table does not account for`).toEqual([]);
      // An excuse is for a command the bundle holds: one it cannot send needs none.
      expect(
        [...excused].filter((command) => !sent.includes(command)),
        `${id} excuses commands its bundle cannot send`
      ).toEqual([]);
      // The handler's own calls are in its bundle: the table lists nothing it cannot send.
      expect(calls.filter((command) => !sent.includes(command))).toEqual([]);
      for (const command of calls) expect(ACTIONS_OF_COMMAND[command], command).toBeDefined();
    },
    60_000
  );

  it.each(Object.entries(CALLS))('%s: its role allows every call in the table', (id, { calls }) => {
    const allowed = new Set(
      statementsOfRole(template, logicalIdAt(template, `${id}Role`))
        .filter((statement) => statement.effect === 'Allow')
        .flatMap((statement) => statement.actions)
    );
    const needed = [...new Set(calls.flatMap((command) => ACTIONS_OF_COMMAND[command] ?? []))];
    expect(needed.filter((action) => !allowed.has(action))).toEqual([]);
  });

  it.each(Object.entries(CALLS))(
    '%s: its role holds no table action its calls do not send',
    (id, { calls }) => {
      const needed = new Set(calls.flatMap((command) => ACTIONS_OF_COMMAND[command] ?? []));
      const held = statementsOfRole(template, logicalIdAt(template, `${id}Role`))
        .filter((statement) => statement.effect === 'Allow' && !readsTheStream(statement))
        .flatMap((statement) => statement.actions)
        .filter((action) => action.startsWith('dynamodb:'));
      expect(held.filter((action) => !needed.has(action))).toEqual([]);
    }
  );

  it('the functions that never call the model are not allowed to', () => {
    const others = Object.keys(CALLS).filter((id) => id !== 'TurnStepFunction');
    for (const id of others) {
      const actions = statementsOfRole(template, logicalIdAt(template, `${id}Role`)).flatMap(
        (statement) => statement.actions
      );
      expect(
        actions.filter((action) => /^bedrock:/.test(action)),
        id
      ).toEqual([]);
    }
  });

  it('only the functions that call remote agents may read their secrets, and only those', () => {
    const secretsOf = (id: string) =>
      statementsOfRole(template, logicalIdAt(template, `${id}Role`))
        .filter((statement) => statement.actions.includes('secretsmanager:GetSecretValue'))
        .flatMap((statement) => statement.resources);
    for (const id of ['RemoteFollowFunction', 'RemotePushFunction']) {
      expect(secretsOf(id), id).toEqual([LEDGER_SECRET]);
    }
    expect(secretsOf('ToolStepFunction')).toEqual([LEDGER_SECRET]);
    // The turn step names the agents to the model: it reads the directory, and no secret of it.
    expect(secretsOf('TurnStepFunction')).not.toContain(LEDGER_SECRET);
    for (const id of ['StreamFunction', 'A2aFunction', 'PushFunction', 'ReconcileFunction']) {
      expect(secretsOf(id), id).toEqual([]);
    }
  });
});
