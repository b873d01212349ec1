/**
 * Everything one deployment of tiny-harness is: the task table, the seven Lambdas, the turn
 * state machine and the reconciler of its executions, the two stream consumers (the stand-in
 * and push delivery), the follow state machine of children on remote agents, the key that seals
 * push secrets, the A2A API and its user pool, and the alarms.
 *
 * Construct ids of the table and the functions are fixed: the local runtime finds the
 * functions in the synthesized template by them (`TaskTable`, `TurnStepFunction`,
 * `StreamFunction`, `A2aFunction`, `PushFunction`, `ReconcileFunction`, `RemoteFollowFunction`,
 * `RemotePushFunction`).
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { mcpSecretArns, parseMcpServers } from '../../functions/composition/mcp-servers-config.js';
import {
  parseRemoteAgents,
  remoteSecretArns,
} from '../../functions/composition/remote-agents-config.js';
import { DEFAULT_PARTICIPANT_CLAIM } from '../../functions/composition/runtime-config.js';
import {
  budgetAlarmsOf,
  cloudTracingOf,
  type HarnessConfig,
  readHarnessConfig,
  turnStepModelEnvironment,
} from '../config.js';
import { A2aApi } from '../constructs/a2a-api.js';
import { A2aAuth } from '../constructs/a2a-auth.js';
import { HarnessAlarms } from '../constructs/alarms.js';
import { AuditArchive } from '../constructs/audit-archive.js';
import { AuditorAccess } from '../constructs/auditor-access.js';
import { ENV } from '../constructs/environment.js';
import { ExecutionReconciler } from '../constructs/execution-reconciler.js';
import { FollowStateMachine } from '../constructs/follow-state-machine.js';
import { HarnessFunction, handlerEntry } from '../constructs/harness-function.js';
import { RecordMigration } from '../constructs/record-migration.js';
import { RemoteAgentsRegistration } from '../constructs/remote-agents-registration.js';
import { PUSH_FILTER, STREAM_FILTERS, StreamConsumer } from '../constructs/stream-consumer.js';
import { TaskTable } from '../constructs/task-table.js';
import {
  followMachineName,
  turnMachineArns,
  turnMachineName,
} from '../constructs/turn-machine-arns.js';
import { TurnStateMachine } from '../constructs/turn-state-machine.js';
import { WebApp } from '../constructs/web-app.js';

export const CONSTRUCT_IDS = {
  table: 'TaskTable',
  turnStepFunction: 'TurnStepFunction',
  toolStepFunction: 'ToolStepFunction',
  streamFunction: 'StreamFunction',
  a2aFunction: 'A2aFunction',
  pushFunction: 'PushFunction',
  reconcileFunction: 'ReconcileFunction',
  reconciler: 'ExecutionReconciler',
  turnStateMachine: 'TurnStateMachine',
  api: 'A2aApi',
  auth: 'A2aAuth',
  streamConsumer: 'StreamConsumer',
  pushConsumer: 'PushConsumer',
  pushSecretsKey: 'PushSecretsKey',
  alarms: 'Alarms',
  auditArchive: 'AuditArchive',
  auditor: 'Auditor',
  remoteFollowFunction: 'RemoteFollowFunction',
  remotePushFunction: 'RemotePushFunction',
  followStateMachine: 'FollowStateMachine',
  remoteAgentsRegistration: 'RemoteAgentsRegistration',
  recordMigration: 'RecordMigration',
  web: 'Web',
} as const;

/** Reserved concurrency, or none for 0 (Lambda reads 0 as "never run"). */
const reservedConcurrency = (reserved: number) =>
  reserved === 0 ? {} : { reservedConcurrentExecutions: reserved };

export interface HarnessStackProps extends StackProps {
  /** @default read from CDK context (see cdk/config.ts) */
  readonly config?: HarnessConfig;
}

export class HarnessStack extends Stack {
  readonly config: HarnessConfig;
  readonly table: TaskTable;
  readonly turnStepFunction: HarnessFunction;
  readonly toolStepFunction: HarnessFunction;
  readonly streamFunction: HarnessFunction;
  readonly a2aFunction: HarnessFunction;
  readonly pushFunction: HarnessFunction;
  readonly reconcileFunction: HarnessFunction;
  readonly recordMigration: RecordMigration;
  readonly reconciler: ExecutionReconciler;
  readonly pushSecretsKey: Key;
  readonly turnMachine: TurnStateMachine;
  readonly api: A2aApi;
  readonly auth: A2aAuth;
  readonly alarms: HarnessAlarms;
  readonly auditArchive: AuditArchive;
  readonly auditor: AuditorAccess;
  readonly remoteFollowFunction: HarnessFunction;
  readonly remotePushFunction: HarnessFunction;
  readonly followMachine: FollowStateMachine;
  readonly web: WebApp;

  constructor(scope: Construct, id: string, props: HarnessStackProps = {}) {
    super(scope, id, props);
    const config = props.config ?? readHarnessConfig(this);
    this.config = config;

    this.table = new TaskTable(this, CONSTRUCT_IDS.table, {
      deletionProtection: config.stage === 'prod',
    });
    const arns = turnMachineArns(this, turnMachineName(this));
    const mcpServers = parseMcpServers(config.mcpServers);
    const connectsMcp = Object.keys(mcpServers).length > 0;
    // What every function reads. The model's configuration goes to the turn and tool steps
    // alone: the turn step calls the model, the tool step gives a new sub-task the default model
    // (the agent card, streams, push delivery and the reconciler never depend on it).
    const environment = {
      [ENV.logLevel]: config.logLevel,
      [ENV.turnsPerGeneration]: String(config.turnsPerGeneration),
      [ENV.criteriaReminders]: String(config.criteriaReminders),
      // Every function that creates tasks gives them their type's budget.
      [ENV.defaultBudget]: config.defaultBudget,
      [ENV.stage]: config.stage,
      // How a client's task runs (the A2A function starts them).
      [ENV.taskLifecycle]: config.taskLifecycle,
    };
    // Every function that drives tasks traces, when the deployment sends spans somewhere.
    const tracing = cloudTracingOf(config, this.stackName);
    // What the two steps of a turn share: the turn state machine calls both, for as long as a
    // model call (the turn step's longest) or a tool call (an MCP server's timeout) may take.
    const step = {
      tracing,
      timeout: Duration.minutes(5),
      environment: { ...environment, ...turnStepModelEnvironment(config) },
      // Their bundles hold the MCP client only when the deployment configures servers.
      mcpServers: connectsMcp,
      // Steps keep running while streams hold A2A instances (docs/deploy.md, "Concurrency").
      ...reservedConcurrency(config.turnStepReservedConcurrency),
    };
    this.turnStepFunction = new HarnessFunction(this, CONSTRUCT_IDS.turnStepFunction, {
      ...step,
      entry: handlerEntry('turn-step'),
      description: 'tiny-harness: one step of a turn (the turn state machine calls it)',
      modelProvider: config.modelProvider,
    });
    // A tool call runs in its own function: its bundle holds the remote agents' A2A client and
    // no model provider, the turn step's the provider and not the client, so each stays within
    // the bundle budget with MCP and tracing (docs/architecture.md, "Two step functions").
    this.toolStepFunction = new HarnessFunction(this, CONSTRUCT_IDS.toolStepFunction, {
      ...step,
      entry: handlerEntry('tool-step'),
      description: 'tiny-harness: runs one tool call of a turn (the turn state machine calls it)',
    });
    this.streamFunction = new HarnessFunction(this, CONSTRUCT_IDS.streamFunction, {
      tracing,
      entry: handlerEntry('stream'),
      description: "tiny-harness: tells a parent task of its children's changes",
      timeout: Duration.minutes(1),
      environment,
    });
    this.a2aFunction = new HarnessFunction(this, CONSTRUCT_IDS.a2aFunction, {
      tracing,
      entry: handlerEntry('a2a'),
      description: 'tiny-harness: the A2A endpoint',
      // A stream (SSE) lasts up to 15 minutes, the REST API's stream-mode limit; the service ends
      // its own streams at 14 (a client resumes with Last-Event-ID), unary calls within 25 s.
      timeout: Duration.minutes(15),
      environment: {
        ...environment,
        [ENV.streamsPerCaller]: String(config.streamsPerCaller),
      },
      // An upper bound on A2A instances (each open stream holds one), so streams never take the
      // account's concurrency from the stream, push and reconcile functions.
      ...reservedConcurrency(config.a2aReservedConcurrency),
    });

    this.pushFunction = new HarnessFunction(this, CONSTRUCT_IDS.pushFunction, {
      entry: handlerEntry('push'),
      description: "tiny-harness: delivers push notifications of a task's events",
      // A batch's deliveries stop in time to report it (four attempts of at most 10 s each).
      timeout: Duration.minutes(2),
      environment: {
        ...environment,
        // Read by the runtime's configuration; the function never calls the state machine.
        [ENV.stateMachineArn]: arns.stateMachineArn,
      },
    });

    for (const fn of [
      this.turnStepFunction,
      this.toolStepFunction,
      this.streamFunction,
      this.a2aFunction,
    ]) {
      fn.bindTable({ table: this.table, access: 'commit' });
    }
    // Delivery reads the task and its configs, and writes nothing.
    this.pushFunction.bindTable({ table: this.table, access: 'read' });

    // Push tokens and credentials are sealed with this key (docs/push-notifications.md). It lives
    // as long as the table that holds what it sealed.
    this.pushSecretsKey = new Key(this, CONSTRUCT_IDS.pushSecretsKey, {
      description: 'tiny-harness push-notification tokens and credentials',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.a2aFunction.bindPushSecrets({ key: this.pushSecretsKey, access: 'seal' });
    this.pushFunction.bindPushSecrets({ key: this.pushSecretsKey, access: 'open' });
    // The turn step renews (starts the next generation), the tool step starts sub-tasks; the
    // stream function wakes parents and answers released parks (and revives a parent whose
    // execution is gone: it describes it, and stops what is left of it); the A2A function starts
    // tasks, wakes them, and cuts turns.
    this.turnStepFunction.bindTurnMachine({ arns, access: 'drive' });
    this.toolStepFunction.bindTurnMachine({ arns, access: 'drive' });
    this.streamFunction.bindTurnMachine({ arns, access: 'manage' });
    // ... and reads execution histories for the timeline a participant asks for (over A2A).
    this.a2aFunction.bindTurnMachine({ arns, access: 'manage', readHistory: true });

    // Only the turn step calls the model: only it may read the key or invoke Bedrock.
    this.turnStepFunction.bindModel({
      provider: config.modelProvider,
      model: config.model,
      apiKeySecretArn: config.modelApiKeySecret || undefined,
      apiKeySecretKmsKeyArn: config.modelApiKeySecretKmsKey || undefined,
    });

    // Only the steps connect the MCP servers (the turn step lists their tools for the model, the
    // tool step calls them), and only they may read their secrets.
    for (const fn of [this.turnStepFunction, this.toolStepFunction]) {
      fn.bindMcpServers({ json: config.mcpServers, secretArns: mcpSecretArns(mcpServers) });
    }

    this.turnMachine = new TurnStateMachine(this, CONSTRUCT_IDS.turnStateMachine, {
      handler: this.turnStepFunction,
      toolHandler: this.toolStepFunction,
      stateMachineName: arns.stateMachineName,
      parkTimeout: Duration.days(config.parkTimeoutDays),
    });

    // Children on remote agents: the tool step creates them (and starts their followers), the
    // follow function follows each one, the push function takes their agents' pushes, and the
    // A2A function starts the follower that cancels one when its parent is canceled. Only the
    // functions that call remote agents get the directory and may read its secrets; the turn
    // step reads it to name the agents to the model, and no secret.
    const followArns = turnMachineArns(this, followMachineName(this));
    const remoteAgents = {
      json: config.remoteAgents,
      secretArns: remoteSecretArns(parseRemoteAgents(config.remoteAgents)),
    };
    this.remoteFollowFunction = new HarnessFunction(this, CONSTRUCT_IDS.remoteFollowFunction, {
      tracing,
      entry: handlerEntry('remote-follow'),
      description: 'tiny-harness: follows a child on a remote agent (its follow state machine)',
      // A delivery, a CancelTask and a GetTask, each call bounded at 15 s.
      timeout: Duration.minutes(2),
      environment,
    });
    this.remotePushFunction = new HarnessFunction(this, CONSTRUCT_IDS.remotePushFunction, {
      tracing,
      entry: handlerEntry('remote-push'),
      description: "tiny-harness: takes remote agents' push notifications about our children",
      timeout: Duration.seconds(30),
      environment,
    });
    for (const fn of [this.remoteFollowFunction, this.remotePushFunction]) {
      fn.bindTable({ table: this.table, access: 'commit' });
      // Delivering a child's news wakes its parent (and revives one whose execution is gone).
      fn.bindTurnMachine({ arns, access: 'manage' });
    }
    for (const fn of [this.toolStepFunction, this.remoteFollowFunction, this.remotePushFunction]) {
      fn.bindRemoteAgents(remoteAgents);
    }
    this.turnStepFunction.bindRemoteAgents({ json: remoteAgents.json, secretArns: [] });
    for (const fn of [
      this.turnStepFunction,
      this.toolStepFunction,
      this.a2aFunction,
      this.remoteFollowFunction,
    ]) {
      fn.bindFollowMachine({ arns: followArns });
    }
    this.followMachine = new FollowStateMachine(this, CONSTRUCT_IDS.followStateMachine, {
      handler: this.remoteFollowFunction,
      stateMachineName: followArns.stateMachineName,
    });
    if (config.remoteAgents.trim() !== '') {
      new RemoteAgentsRegistration(this, CONSTRUCT_IDS.remoteAgentsRegistration, {
        directory: config.remoteAgents,
        logLevel: config.logLevel,
      });
    }

    // No execution ends unnoticed: the reconciler hears of every FAILED, TIMED_OUT or ABORTED
    // one and fails its task, or starts a fresh generation when work is waiting. On a schedule it
    // also starts the generations whose starter died before starting them.
    this.reconcileFunction = new HarnessFunction(this, CONSTRUCT_IDS.reconcileFunction, {
      tracing,
      entry: handlerEntry('reconcile'),
      description: 'tiny-harness: reconciles a task whose turn execution ended without it',
      timeout: Duration.minutes(1),
      environment,
    });
    this.reconcileFunction.bindTable({ table: this.table, access: 'commit' });
    this.reconcileFunction.bindTurnMachine({ arns, access: 'follow' });
    this.reconciler = new ExecutionReconciler(this, CONSTRUCT_IDS.reconciler, {
      handler: this.reconcileFunction,
      stateMachineArn: arns.stateMachineArn,
    });

    const consumer = new StreamConsumer(this, CONSTRUCT_IDS.streamConsumer, {
      table: this.table,
      handler: this.streamFunction,
      filters: STREAM_FILTERS,
    });
    const pushConsumer = new StreamConsumer(this, CONSTRUCT_IDS.pushConsumer, {
      table: this.table,
      handler: this.pushFunction,
      filters: [PUSH_FILTER],
      // A webhook that is down holds up the records behind it for its retries: spread a shard
      // over ten batches (one task's events still go one batch at a time, in order).
      parallelizationFactor: 10,
    });

    this.auth = new A2aAuth(this, CONSTRUCT_IDS.auth, {
      stage: config.stage,
      deletionProtection: config.userPoolDeletionProtection,
    });
    this.api = new A2aApi(this, CONSTRUCT_IDS.api, {
      handler: this.a2aFunction,
      remotePushHandler: this.remotePushFunction,
      stageName: config.stage,
      auth: this.auth,
      callerRequestsPerMinute: config.callerRequestsPerMinute,
    });
    this.a2aFunction.addEnvironment(ENV.baseUrl, this.api.baseUrl);
    // Where remote agents push: the tool step gives each new remote child our webhook's URL.
    this.toolStepFunction.addEnvironment(ENV.baseUrl, this.api.baseUrl);
    this.a2aFunction.addEnvironment(ENV.authMode, 'cognito');
    this.a2aFunction.addEnvironment(ENV.oauthTokenUrl, this.auth.tokenUrl);
    // The web renderer (docs/web.md): its page calls the API from its own origin.
    const stack = Stack.of(this);
    this.web = new WebApp(this, CONSTRUCT_IDS.web, {
      apiUrl: this.api.baseUrl,
      apiOrigin: `https://${this.api.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
      auth: this.auth,
      participantClaim: DEFAULT_PARTICIPANT_CLAIM,
    });
    this.api.allowBrowserOrigin(this.web.origin);
    this.a2aFunction.addEnvironment(ENV.webOrigin, this.web.origin);
    if (config.agentSkills.trim() !== '') {
      this.a2aFunction.addEnvironment(ENV.agentSkills, config.agentSkills);
    }

    this.alarms = new HarnessAlarms(this, CONSTRUCT_IDS.alarms, {
      stage: config.stage,
      stateMachine: this.turnMachine.stateMachine,
      followStateMachine: this.followMachine.stateMachine,
      functions: {
        TurnStep: this.turnStepFunction,
        ToolStep: this.toolStepFunction,
        Stream: this.streamFunction,
        A2a: this.a2aFunction,
        Push: this.pushFunction,
        Reconcile: this.reconcileFunction,
        RemoteFollow: this.remoteFollowFunction,
        RemotePush: this.remotePushFunction,
      },
      apiStage: this.api.restApi.deploymentStage,
      streamConsumers: [
        {
          id: 'Stream',
          handler: this.streamFunction,
          failureQueue: consumer.failureQueue,
          failureDescription:
            'A stream batch gave up after its retries: a parent may have missed a child change.',
        },
        {
          id: 'Push',
          handler: this.pushFunction,
          failureQueue: pushConsumer.failureQueue,
          failureDescription:
            'A push-notification batch gave up after its retries: a webhook missed events (see docs/push-notifications.md).',
        },
      ],
      reconcilerDeadLetterQueue: this.reconciler.deadLetterQueue,
      budgetAlarms: budgetAlarmsOf(config),
    });

    // A table an earlier build wrote is migrated by the deployment that replaces it.
    this.recordMigration = new RecordMigration(this, CONSTRUCT_IDS.recordMigration, {
      table: this.table,
      environment,
    });

    // The auditor's record outlives Step Functions' 90 days (docs/deploy.md, "Auditing").
    this.auditArchive = new AuditArchive(this, CONSTRUCT_IDS.auditArchive, {
      table: this.table,
      arns,
      environment,
      retentionDays: config.auditArchiveRetentionDays,
    });
    this.auditor = new AuditorAccess(this, CONSTRUCT_IDS.auditor, {
      table: this.table,
      arns,
      stateMachineLogs: this.turnMachine.logGroup,
    });
    new CfnOutput(this, 'AuditorRoleArn', {
      value: this.auditor.role.roleArn,
      description: 'Read-only auditor role (docs/deploy.md, "Auditing")',
    });
    new CfnOutput(this, 'AuditorPolicyArn', {
      value: this.auditor.policy.managedPolicyArn,
      description: 'The same read-only access, to attach to your own principals',
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.restApi.url,
      description: 'A2A endpoint (JSON-RPC at /, agent card at /.well-known/agent-card.json)',
    });
    new CfnOutput(this, 'UserPoolId', {
      value: this.auth.userPool.userPoolId,
      description: 'Cognito user pool of the A2A callers (docs/identity.md)',
    });
    new CfnOutput(this, 'TokenEndpoint', {
      value: this.auth.tokenUrl,
      description: 'OAuth 2.0 token endpoint (client credentials, scope tiny-harness/a2a)',
    });
    new CfnOutput(this, 'AgentClientId', {
      value: this.auth.agentClient.userPoolClientId,
      description:
        'App client for agent callers; its secret: aws cognito-idp describe-user-pool-client',
    });
    new CfnOutput(this, 'WebUrl', {
      value: `${this.web.origin}/`,
      description: 'The web renderer: sign in with a user of the pool (docs/web.md)',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'StateMachineArn', {
      value: this.turnMachine.stateMachine.stateMachineArn,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description:
        'Subscribe to hear of failed executions, and stream and push batches that gave up',
    });
  }
}
