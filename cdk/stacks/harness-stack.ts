/**
 * Everything one deployment of tiny-harness is: the task table, the four Lambdas, the turn
 * state machine, the two stream consumers (the stand-in and push delivery), the key that seals
 * push secrets, the A2A API and its user pool, and the alarms.
 *
 * Construct ids of the table and the functions are fixed: the local runtime finds the
 * functions in the synthesized template by them (`TaskTable`, `TurnStepFunction`,
 * `StreamFunction`, `A2aFunction`, `PushFunction`).
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { type HarnessConfig, readHarnessConfig } from '../config.js';
import { A2aApi } from '../constructs/a2a-api.js';
import { A2aAuth } from '../constructs/a2a-auth.js';
import { HarnessAlarms } from '../constructs/alarms.js';
import { ENV } from '../constructs/environment.js';
import { HarnessFunction, handlerEntry } from '../constructs/harness-function.js';
import { PUSH_FILTER, STREAM_FILTERS, StreamConsumer } from '../constructs/stream-consumer.js';
import { TaskTable } from '../constructs/task-table.js';
import { turnMachineArns, turnMachineName } from '../constructs/turn-machine-arns.js';
import { TurnStateMachine } from '../constructs/turn-state-machine.js';

export const CONSTRUCT_IDS = {
  table: 'TaskTable',
  turnStepFunction: 'TurnStepFunction',
  streamFunction: 'StreamFunction',
  a2aFunction: 'A2aFunction',
  pushFunction: 'PushFunction',
  turnStateMachine: 'TurnStateMachine',
  api: 'A2aApi',
  auth: 'A2aAuth',
  streamConsumer: 'StreamConsumer',
  pushConsumer: 'PushConsumer',
  pushSecretsKey: 'PushSecretsKey',
  alarms: 'Alarms',
} as const;

export interface HarnessStackProps extends StackProps {
  /** @default read from CDK context (see cdk/config.ts) */
  readonly config?: HarnessConfig;
}

export class HarnessStack extends Stack {
  readonly config: HarnessConfig;
  readonly table: TaskTable;
  readonly turnStepFunction: HarnessFunction;
  readonly streamFunction: HarnessFunction;
  readonly a2aFunction: HarnessFunction;
  readonly pushFunction: HarnessFunction;
  readonly pushSecretsKey: Key;
  readonly turnMachine: TurnStateMachine;
  readonly api: A2aApi;
  readonly auth: A2aAuth;
  readonly alarms: HarnessAlarms;

  constructor(scope: Construct, id: string, props: HarnessStackProps = {}) {
    super(scope, id, props);
    const config = props.config ?? readHarnessConfig(this);
    this.config = config;

    this.table = new TaskTable(this, CONSTRUCT_IDS.table, {
      deletionProtection: config.stage === 'prod',
    });
    const arns = turnMachineArns(this, turnMachineName(this));
    const environment = {
      [ENV.logLevel]: config.logLevel,
      [ENV.modelProvider]: config.modelProvider,
      [ENV.model]: config.model,
      [ENV.turnsPerGeneration]: String(config.turnsPerGeneration),
      [ENV.stage]: config.stage,
      [ENV.modelReasoning]: config.modelReasoning,
      [ENV.modelPrices]: config.modelPrices,
      [ENV.taskLifecycle]: config.taskLifecycle,
      ...(config.modelBaseUrl === '' ? {} : { [ENV.modelBaseUrl]: config.modelBaseUrl }),
      ...(config.modelApiKeySecret === ''
        ? {}
        : { [ENV.modelApiKeySecret]: config.modelApiKeySecret }),
    };

    this.turnStepFunction = new HarnessFunction(this, CONSTRUCT_IDS.turnStepFunction, {
      entry: handlerEntry('turn-step'),
      description: 'tiny-harness: one step of a turn (the turn state machine calls it)',
      // A model call is the longest step.
      timeout: Duration.minutes(5),
      environment,
    });
    this.streamFunction = new HarnessFunction(this, CONSTRUCT_IDS.streamFunction, {
      entry: handlerEntry('stream'),
      description: "tiny-harness: tells a parent task of its children's changes",
      timeout: Duration.minutes(1),
      environment,
    });
    this.a2aFunction = new HarnessFunction(this, CONSTRUCT_IDS.a2aFunction, {
      entry: handlerEntry('a2a'),
      description: 'tiny-harness: the A2A endpoint',
      // A stream (SSE) lasts up to 15 minutes, the REST API's stream-mode limit; the service ends
      // its own streams at 14 (a client resumes with Last-Event-ID), unary calls within 25 s.
      timeout: Duration.minutes(15),
      environment,
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

    for (const fn of [this.turnStepFunction, this.streamFunction, this.a2aFunction]) {
      fn.bindTable({ table: this.table, access: 'readWrite' });
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
    // The turn step renews (starts the next generation) and starts sub-tasks; the stream
    // function wakes parents; the A2A function starts tasks, wakes them, and cuts turns.
    this.turnStepFunction.bindTurnMachine({ arns, access: 'drive' });
    this.streamFunction.bindTurnMachine({ arns, access: 'manage' });
    this.a2aFunction.bindTurnMachine({ arns, access: 'manage' });

    // Only the turn step calls the model: only it may read the key or invoke Bedrock.
    this.turnStepFunction.bindModel({
      provider: config.modelProvider,
      model: config.model,
      apiKeySecretArn: config.modelApiKeySecret || undefined,
    });

    this.turnMachine = new TurnStateMachine(this, CONSTRUCT_IDS.turnStateMachine, {
      handler: this.turnStepFunction,
      stateMachineName: arns.stateMachineName,
      parkTimeout: Duration.days(config.parkTimeoutDays),
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
      deletionProtection: config.stage === 'prod',
    });
    this.api = new A2aApi(this, CONSTRUCT_IDS.api, {
      handler: this.a2aFunction,
      stageName: config.stage,
      auth: this.auth,
      callerRequestsPerMinute: config.callerRequestsPerMinute,
    });
    this.a2aFunction.addEnvironment(ENV.baseUrl, this.api.baseUrl);
    this.a2aFunction.addEnvironment(ENV.authMode, 'cognito');
    this.a2aFunction.addEnvironment(ENV.oauthTokenUrl, this.auth.tokenUrl);
    if (config.agentSkills.trim() !== '') {
      this.a2aFunction.addEnvironment(ENV.agentSkills, config.agentSkills);
    }

    this.alarms = new HarnessAlarms(this, CONSTRUCT_IDS.alarms, {
      stateMachine: this.turnMachine.stateMachine,
      streamFailureQueue: consumer.failureQueue,
      pushFailureQueue: pushConsumer.failureQueue,
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
