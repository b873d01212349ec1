import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { DEFAULT_CONTEXT } from '../../cdk/config.js';
import { THROTTLED_LABEL } from '../../cdk/constructs/a2a-rate-limit.js';
import { ENV } from '../../cdk/constructs/environment.js';
import {
  ATTR,
  INDEX_BY_CONTEXT,
  INDEX_BY_PARTICIPANT,
  INDEX_BY_PENDING_START,
  SORT_KEY_VALUE,
} from '../../functions/adapters/dynamodb/table.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  TEST_STACK_NAME,
  TEST_STAGE,
} from './support/synth.js';

const { template } = synthHarness();

const STATE_MACHINE_NAME = `${TEST_STACK_NAME}-turns`;
const STATE_MACHINE_ARN = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${STATE_MACHINE_NAME}`;
const EXECUTION_ARNS = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${STATE_MACHINE_NAME}:*`;

const tableId = logicalIdAt(template, 'TaskTable');
const functionIds = {
  turnStep: logicalIdAt(template, 'TurnStepFunction'),
  toolStep: logicalIdAt(template, 'ToolStepFunction'),
  stream: logicalIdAt(template, 'StreamFunction'),
  a2a: logicalIdAt(template, 'A2aFunction'),
  push: logicalIdAt(template, 'PushFunction'),
  reconcile: logicalIdAt(template, 'ReconcileFunction'),
};
const queueId = logicalIdAt(template, 'StreamConsumer/FailureQueue');
const pushQueueId = logicalIdAt(template, 'PushConsumer/FailureQueue');
const pushKeyId = logicalIdAt(template, 'PushSecretsKey');

/** The event source mapping that feeds a function. */
const mappingOf = (functionLogicalId: string) => {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
    (mapping) => mapping.Properties.FunctionName.Ref === functionLogicalId
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
};

const filterPatterns = (mapping: Record<string, unknown>) =>
  (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) =>
    JSON.parse(filter.Pattern)
  );

describe('configuration', () => {
  it('cdk.json carries the same context defaults as cdk/config.ts', () => {
    const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
    expect(cdkJson.app).toBe('npx tsx cdk/bin/app.ts');
    expect(cdkJson.context).toMatchObject(DEFAULT_CONTEXT);
  });

  it('refuses a bad context value at synthesis', () => {
    expect(() => buildApp({ bundle: false, context: { stage: 'no spaces' } })).toThrow(/stage/);
    expect(() => buildApp({ bundle: false, context: { modelProvider: 'nope' } })).toThrow(
      /modelProvider/
    );
    expect(() => buildApp({ bundle: false, context: { turnsPerGeneration: '0' } })).toThrow(
      /turnsPerGeneration/
    );
  });

  it('takes -c values as the strings the CLI passes', () => {
    const { stack } = buildApp({
      bundle: false,
      context: { stage: 'prod', turnsPerGeneration: '300', parkTimeoutDays: '3' },
    });
    expect(stack.stackName).toBe('TinyHarness-prod');
    expect(stack.config).toMatchObject({ turnsPerGeneration: 300, parkTimeoutDays: 3 });
  });
});

describe('task table', () => {
  it('is on-demand, with point-in-time recovery, TTL and a NEW_AND_OLD_IMAGES stream', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        TimeToLiveSpecification: { AttributeName: ATTR.expiresAt, Enabled: true },
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
    expect(tableId).toMatch(/^TaskTable/);
  });

  it('has the by_context, by_participant and by_pending_start indexes (KEYS_ONLY)', () => {
    const indexes = resourceAt(template, 'TaskTable').Properties?.GlobalSecondaryIndexes;
    expect(indexes).toEqual([
      {
        IndexName: INDEX_BY_CONTEXT,
        KeySchema: [
          { AttributeName: ATTR.ctxPk, KeyType: 'HASH' },
          { AttributeName: ATTR.ctxSk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
      {
        IndexName: INDEX_BY_PARTICIPANT,
        KeySchema: [
          { AttributeName: ATTR.partPk, KeyType: 'HASH' },
          { AttributeName: ATTR.partSk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
      {
        IndexName: INDEX_BY_PENDING_START,
        KeySchema: [
          { AttributeName: ATTR.startPk, KeyType: 'HASH' },
          { AttributeName: ATTR.startSk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
  });
});

describe('stream consumer', () => {
  const mapping = () => mappingOf(functionIds.stream);

  it('is one of two mappings on the table stream, beside the push consumer', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it('reads the table stream into StreamFunction with bounded retries and bisection', () => {
    expect(mapping()).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionName: { Ref: functionIds.stream },
      StartingPosition: 'LATEST',
      BatchSize: 10,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it('passes inserted or modified task records of tasks with a parent or a budget, and released parks', () => {
    expect(filterPatterns(mapping())).toEqual([
      {
        eventName: ['INSERT', 'MODIFY'],
        dynamodb: {
          NewImage: {
            sk: { S: [SORT_KEY_VALUE.task] },
            [ATTR.parentId]: { S: [{ exists: true }] },
          },
        },
      },
      {
        eventName: ['MODIFY'],
        dynamodb: {
          OldImage: { sk: { S: [SORT_KEY_VALUE.task] }, [ATTR.parked]: { BOOL: [true] } },
          NewImage: { [ATTR.parked]: { BOOL: [false] } },
        },
      },
      {
        eventName: ['INSERT', 'MODIFY'],
        dynamodb: {
          NewImage: {
            sk: { S: [SORT_KEY_VALUE.task] },
            [ATTR.budgetAccount]: { BOOL: [true] },
          },
        },
      },
    ]);
  });

  it('sends failed batches to an encrypted, TLS-only queue', () => {
    expect(resourceAt(template, 'StreamConsumer/FailureQueue').Properties).toMatchObject({
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('push consumer', () => {
  const mapping = () => mappingOf(functionIds.push);

  it('reads the table stream into PushFunction with bounded retries, bisection and its own failure queue', () => {
    expect(mapping()).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 10,
      ParallelizationFactor: 10,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [pushQueueId, 'Arn'] } } },
    });
    expect(resourceAt(template, 'PushConsumer/FailureQueue').Properties).toMatchObject({
      SqsManagedSseEnabled: true,
    });
  });

  it('passes only inserted log items (or earlier event items) marked for push, never a task record', () => {
    expect(filterPatterns(mapping())).toEqual([
      {
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: { sk: { S: [{ prefix: 'LOG#' }, { prefix: 'EVT#' }] }, push: { BOOL: [true] } },
        },
      },
    ]);
  });

  it('alarms when a push batch gave up', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [pushQueueId, 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [{ Ref: logicalIdAt(template, 'Alarms/Topic') }],
    });
  });
});

describe('push secrets key', () => {
  it('rotates, and is retained with the table whose tokens it sealed', () => {
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        EnableKeyRotation: true,
        Description: 'tiny-harness push-notification tokens and credentials',
      }),
    });
    expect(resourceAt(template, 'PushSecretsKey').DeletionPolicy).toBe('Retain');
  });

  it('is named to the A2A and push functions only', () => {
    const keyOf = (id: string) =>
      (
        resourceAt(template, id).Properties!.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables[ENV.pushKmsKeyId];
    const arn = { 'Fn::GetAtt': [pushKeyId, 'Arn'] };
    expect(keyOf('A2aFunction')).toEqual(arn);
    expect(keyOf('PushFunction')).toEqual(arn);
    expect(keyOf('TurnStepFunction')).toBeUndefined();
    expect(keyOf('StreamFunction')).toBeUndefined();
  });
});

describe('functions', () => {
  const cases = [
    { id: 'TurnStepFunction', logicalId: functionIds.turnStep, timeout: 300 },
    { id: 'ToolStepFunction', logicalId: functionIds.toolStep, timeout: 300 },
    { id: 'StreamFunction', logicalId: functionIds.stream, timeout: 60 },
    { id: 'A2aFunction', logicalId: functionIds.a2a, timeout: 900 },
    { id: 'PushFunction', logicalId: functionIds.push, timeout: 120 },
    { id: 'ReconcileFunction', logicalId: functionIds.reconcile, timeout: 60 },
  ];

  it.each(cases)('$id: Node 22 on arm64, ESM, traced, 512 MB, its own log group', (c) => {
    const properties = resourceAt(template, c.id).Properties!;
    expect(properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: c.timeout,
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogGroup: { Ref: logicalIdAt(template, `${c.id}Logs`) } },
      Role: { 'Fn::GetAtt': [logicalIdAt(template, `${c.id}Role`), 'Arn'] },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it.each(cases)('$id: configured through the environment', (c) => {
    const variables = (
      resourceAt(template, c.id).Properties!.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables).toMatchObject({
      [ENV.table]: { Ref: tableId },
      [ENV.logLevel]: DEFAULT_CONTEXT.logLevel,
      [ENV.turnsPerGeneration]: String(DEFAULT_CONTEXT.turnsPerGeneration),
      [ENV.criteriaReminders]: String(DEFAULT_CONTEXT.criteriaReminders),
      [ENV.taskLifecycle]: DEFAULT_CONTEXT.taskLifecycle,
      [ENV.stage]: TEST_STAGE,
    });
    // Only the turn step calls the model: only it and the tool step (which gives a new sub-task
    // the default model) are told the model's configuration.
    const modelVariables = Object.keys(variables).filter((name) =>
      name.startsWith('TINY_HARNESS_MODEL')
    );
    expect(modelVariables).toEqual(
      c.id === 'TurnStepFunction' || c.id === 'ToolStepFunction'
        ? [ENV.modelProvider, ENV.modelReasoning, ENV.modelPrices]
        : []
    );
    // Source maps are read at the first error (lazy-source-maps.ts), not by Node at every start.
    expect(variables).not.toHaveProperty('NODE_OPTIONS');
    // Computed from the fixed name: a reference to the state machine would be a cycle.
    expect(flatten(variables[ENV.stateMachineArn])).toBe(STATE_MACHINE_ARN);
  });

  it('gives the A2A function the agent card’s skills from context, none when unset, and refuses a bad list', () => {
    const skills = JSON.stringify([
      { id: 'triage', name: 'Triage', description: 'Sorts tickets.', tags: ['support'] },
    ]);
    const variablesOf = (built: ReturnType<typeof synthHarness>['template']) =>
      (
        resourceAt(built, 'A2aFunction').Properties!.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
    expect(variablesOf(template)).not.toHaveProperty(ENV.agentSkills);
    expect(variablesOf(synthHarness({ agentSkills: skills }).template)[ENV.agentSkills]).toBe(
      skills
    );
    expect(() => buildApp({ bundle: false, context: { agentSkills: '[{"id": "x"}]' } })).toThrow(
      /agentSkills/
    );
  });

  it('tells the A2A function its public base URL without a reference cycle', () => {
    const variables = (
      resourceAt(template, 'A2aFunction').Properties!.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(flatten(variables[ENV.baseUrl])).toBe(
      `https://<${logicalIdAt(template, 'A2aApi/RestApi')}>.execute-api.<AWS::Region>.<AWS::URLSuffix>/${TEST_STAGE}`
    );
  });
});

describe('IAM (least privilege)', () => {
  const TABLE = `<${tableId}.Arn>`;
  const TABLE_INDEXES = `<${tableId}.Arn>/index/*`;
  const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

  const roleOf = (id: string) => logicalIdAt(template, `${id}Role`);

  /** What every function may do: write its logs, trace, use the table, drive the machine. */
  const common = (id: string) => [
    { effect: 'Allow', actions: XRAY, resources: ['*'] },
    {
      effect: 'Allow',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [`<${logicalIdAt(template, `${id}Logs`)}.Arn>`],
    },
    {
      effect: 'Allow',
      actions: expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
      ]),
      resources: [TABLE, TABLE_INDEXES],
    },
    {
      effect: 'Allow',
      actions: [
        'states:SendTaskFailure',
        'states:SendTaskHeartbeat',
        'states:SendTaskSuccess',
        'states:StartExecution',
      ],
      resources: [STATE_MACHINE_ARN],
    },
  ];

  it('turn step: table, its logs, X-Ray, start and answer executions', () => {
    const statements = statementsOfRole(template, roleOf('TurnStepFunction'));
    expect(statements).toEqual(expect.arrayContaining(common('TurnStepFunction')));
    expect(statements.flatMap((s) => s.actions)).not.toContain('states:StopExecution');
  });

  it('stream: also reads the stream and writes its failure queue', () => {
    const statements = statementsOfRole(template, roleOf('StreamFunction'));
    expect(statements).toEqual(
      expect.arrayContaining([
        ...common('StreamFunction'),
        {
          effect: 'Allow',
          actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          resources: [`<${tableId}.StreamArn>`],
        },
        {
          effect: 'Allow',
          actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
          resources: [`<${queueId}.Arn>`],
        },
      ])
    );
  });

  it('A2A: also stops and describes executions of this machine only, and reads their histories (the timeline)', () => {
    const statements = statementsOfRole(template, roleOf('A2aFunction'));
    expect(statements).toEqual(
      expect.arrayContaining([
        ...common('A2aFunction'),
        {
          effect: 'Allow',
          actions: [
            'states:DescribeExecution',
            'states:GetExecutionHistory',
            'states:StopExecution',
          ],
          resources: [EXECUTION_ARNS],
        },
      ])
    );
  });

  const KEY = `<${pushKeyId}.Arn>`;
  const kmsActions = (id: string) =>
    statementsOfRole(template, roleOf(id))
      .filter((statement) => statement.actions.some((action) => action.startsWith('kms:')))
      .map(({ actions, resources }) => ({ actions, resources }));

  it('push: reads the table and the stream, writes its failure queue, decrypts with the push key; nothing else', () => {
    const statements = statementsOfRole(template, roleOf('PushFunction'));
    expect(statements).toEqual(
      expect.arrayContaining([
        { effect: 'Allow', actions: XRAY, resources: ['*'] },
        {
          effect: 'Allow',
          actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          resources: [`<${tableId}.StreamArn>`],
        },
        {
          effect: 'Allow',
          actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
          resources: [`<${pushQueueId}.Arn>`],
        },
      ])
    );
    const actions = statements.flatMap((statement) => statement.actions);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(
      actions.filter((action) => /^dynamodb:.*(Put|Update|Delete|Write)/.test(action))
    ).toEqual([]);
    expect(actions.filter((action) => action.startsWith('states:'))).toEqual([]);
    expect(kmsActions('PushFunction')).toEqual([{ actions: ['kms:Decrypt'], resources: [KEY] }]);
  });

  it('push key: the A2A function encrypts and decrypts; the turn step and stream functions may not use it', () => {
    expect(kmsActions('A2aFunction')).toEqual([
      { actions: ['kms:Decrypt', 'kms:Encrypt'], resources: [KEY] },
    ]);
    expect(kmsActions('TurnStepFunction')).toEqual([]);
    expect(kmsActions('StreamFunction')).toEqual([]);
  });

  it('grants "*" only for X-Ray and Step Functions log delivery, which have no resource ARNs', () => {
    const roles = Object.keys(template.findResources('AWS::IAM::Role'));
    const wildcard = roles
      .flatMap((role) => statementsOfRole(template, role))
      .filter((statement) => statement.resources.includes('*'));
    expect(wildcard.length).toBeGreaterThan(0);
    for (const statement of wildcard) {
      for (const action of statement.actions) {
        expect(action).toMatch(
          /^(xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)|logs:(CreateLogDelivery|GetLogDelivery|UpdateLogDelivery|DeleteLogDelivery|ListLogDeliveries|PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups))$/
        );
      }
    }
  });

  it('the state machine invokes only the turn and tool step functions', () => {
    const role = logicalIdAt(template, 'TurnStateMachine/StateMachine/Role');
    const invoke = statementsOfRole(template, role).filter((s) =>
      s.actions.includes('lambda:InvokeFunction')
    );
    expect(invoke).toEqual([
      {
        effect: 'Allow',
        actions: ['lambda:InvokeFunction'],
        resources: [`<${functionIds.turnStep}.Arn>`, `<${functionIds.turnStep}.Arn>:*`],
      },
      {
        effect: 'Allow',
        actions: ['lambda:InvokeFunction'],
        resources: [`<${functionIds.toolStep}.Arn>`, `<${functionIds.toolStep}.Arn>:*`],
      },
    ]);
  });

  it('uses no AWS managed policy but the API Gateway logging role', () => {
    // The stack's own managed policies (the auditor's) are ours, not AWS's.
    const withManaged = Object.entries(template.findResources('AWS::IAM::Role')).filter(
      ([, role]) =>
        ((role.Properties?.ManagedPolicyArns as unknown[] | undefined) ?? []).some((arn) =>
          flatten(arn).includes(':iam::aws:policy/')
        )
    );
    expect(withManaged.map(([id]) => id)).toEqual([
      logicalIdAt(template, 'A2aApi/RestApi/CloudWatchRole'),
    ]);
  });
});

describe('turn state machine', () => {
  it('is a Standard machine with a fixed name, full logging without data, and tracing', () => {
    const properties = resourceAt(template, 'TurnStateMachine/StateMachine').Properties!;
    expect(properties).toMatchObject({
      StateMachineName: STATE_MACHINE_NAME,
      StateMachineType: 'STANDARD',
      LoggingConfiguration: {
        Level: 'ALL',
        IncludeExecutionData: false,
        Destinations: [
          {
            CloudWatchLogsLogGroup: {
              LogGroupArn: {
                'Fn::GetAtt': [logicalIdAt(template, 'TurnStateMachine/Logs'), 'Arn'],
              },
            },
          },
        ],
      },
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe('A2A API', () => {
  const apiId = logicalIdAt(template, 'A2aApi/RestApi');

  it('serves the agent card, JSON-RPC and HTTP+JSON through A2aFunction (proxy), streamed', () => {
    // OPTIONS, the web renderer's CORS preflight, is API Gateway's own (test/cdk/web-app.test.ts).
    const all = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (method) => method.Properties.HttpMethod !== 'OPTIONS'
    );
    expect(all).toHaveLength(4);
    const methods = all.filter((method) =>
      JSON.stringify(method.Properties.Integration.Uri).includes(functionIds.a2a)
    );
    expect(methods).toHaveLength(3);
    for (const method of methods) {
      expect(method.Properties.Integration).toMatchObject({
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 15 * 60_000,
      });
      const uri = JSON.stringify(method.Properties.Integration.Uri);
      expect(uri).toContain(functionIds.a2a);
      // Lambda response streaming is a different invoke API from the buffered one.
      expect(uri).toContain('/response-streaming-invocations');
    }
    const pathOf = (method: (typeof methods)[number]) => {
      const resource = method.Properties.ResourceId;
      if ('Fn::GetAtt' in resource) return '/';
      return template.toJSON().Resources[resource.Ref].Properties.PathPart as string;
    };
    expect(
      methods.map((method) => `${method.Properties.HttpMethod} ${pathOf(method)}`).sort()
    ).toEqual(['ANY {proxy+}', 'GET agent-card.json', 'POST /']);
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '.well-known' });
  });

  it('has a stage named after the deployment stage, access logs, tracing and throttling', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      RestApiId: { Ref: apiId },
      StageName: TEST_STAGE,
      TracingEnabled: true,
      AccessLogSetting: {
        DestinationArn: { 'Fn::GetAtt': [logicalIdAt(template, 'A2aApi/AccessLogs'), 'Arn'] },
      },
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
        }),
      ],
    });
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
  });
});

describe('alarms and outputs', () => {
  const topicId = logicalIdAt(template, 'Alarms/Topic');

  it('alarms on a failed execution and on a stream batch that gave up, to one encrypted topic', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsFailed',
      Dimensions: [{ Name: 'StateMachineArn', Value: Match.anyValue() }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId }],
    });
    expect(resourceAt(template, 'Alarms/Topic').Properties).toMatchObject({
      KmsMasterKeyId: { 'Fn::GetAtt': [logicalIdAt(template, 'Alarms/TopicKey'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('outputs the API URL, table name, state machine ARN and alarm topic ARN', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'TableName', 'StateMachineArn', 'AlarmTopicArn'])
    );
    expect(outputs.TableName!.Value).toEqual({ Ref: tableId });
    expect(outputs.AlarmTopicArn!.Value).toEqual({ Ref: topicId });
  });
});

describe('A2A per-caller rate limits (WAF)', () => {
  const [webAcl] = Object.values(template.findResources('AWS::WAFv2::WebACL'));
  const rules = (webAcl?.Properties.Rules ?? []) as Array<{
    Name: string;
    Priority: number;
    Action: { Count?: object; Block?: { CustomResponse: Record<string, unknown> } };
    RuleLabels?: Array<{ Name: string }>;
    Statement: Record<string, unknown> & { RateBasedStatement?: Record<string, unknown> };
  }>;
  const named = (name: string) => rules.find((rule) => rule.Name === name);
  const bodies = webAcl?.Properties.CustomResponseBodies as Record<
    string,
    { ContentType: string; Content: string }
  >;

  it('counts each caller’s requests by its Authorization header, whitespace and case folded, 120 a minute by default, and labels those past it', () => {
    expect(webAcl?.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const perCaller = named('PerCaller');
    expect(perCaller?.Statement.RateBasedStatement).toEqual({
      Limit: DEFAULT_CONTEXT.callerRequestsPerMinute,
      EvaluationWindowSec: 60,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [
        {
          // `Bearer abc`, `bearer  abc` and `BEARER ABC` share one bucket.
          Header: {
            Name: 'authorization',
            TextTransformations: [
              { Priority: 0, Type: 'COMPRESS_WHITE_SPACE' },
              { Priority: 1, Type: 'LOWERCASE' },
            ],
          },
        },
      ],
    });
    expect(perCaller?.Action).toEqual({ Count: {} });
    expect(perCaller?.RuleLabels).toEqual([{ Name: THROTTLED_LABEL }]);
  });

  it('answers a labelled request 429 with Retry-After, in its binding’s error shape: JSON-RPC first, HTTP+JSON for the rest', () => {
    expect(rules.map((rule) => [rule.Priority, rule.Name])).toEqual([
      [0, 'PerCaller'],
      [1, 'PerAddress'],
      [2, 'ThrottledJsonRpc'],
      [3, 'Throttled'],
    ]);
    const label = { LabelMatchStatement: { Scope: 'LABEL', Key: THROTTLED_LABEL } };
    expect(named('Throttled')?.Statement).toEqual(label);
    const jsonRpcStatement = named('ThrottledJsonRpc')?.Statement as
      | { AndStatement: { Statements: unknown[] } }
      | undefined;
    const [labelled, request] = jsonRpcStatement?.AndStatement.Statements ?? [];
    expect(labelled).toEqual(label);
    // A JSON-RPC request is a POST whose body names "jsonrpc" (whatever path the stage adds).
    expect(request).toMatchObject({
      AndStatement: {
        Statements: [
          { ByteMatchStatement: { FieldToMatch: { Method: {} }, SearchString: 'POST' } },
          {
            ByteMatchStatement: {
              FieldToMatch: { Body: { OversizeHandling: 'CONTINUE' } },
              PositionalConstraint: 'CONTAINS',
              SearchString: '"jsonrpc"',
            },
          },
        ],
      },
    });
    for (const [name, key] of [
      ['ThrottledJsonRpc', 'throttledJsonRpc'],
      ['Throttled', 'throttledRest'],
    ] as const) {
      const response = named(name)?.Action.Block?.CustomResponse;
      expect(response).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: key });
      // The web renderer's origin follows it (test/cdk/web-app.test.ts).
      expect((response?.ResponseHeaders as unknown[] | undefined)?.[0]).toEqual({
        Name: 'Retry-After',
        Value: '60',
      });
      expect(bodies[key]?.ContentType).toBe('APPLICATION_JSON');
    }
    const rpc = JSON.parse(bodies.throttledJsonRpc?.Content ?? '{}');
    expect(rpc).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(rpc.error.data[0]).toMatchObject({ reason: 'RATE_LIMITED', domain: 'tiny-harness' });
    const rest = JSON.parse(bodies.throttledRest?.Content ?? '{}');
    expect(rest.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(rest.error.details[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '60s',
    });
  });

  it('bounds requests without a token by address, at several callers’ worth', () => {
    const perAddress = rules.find((rule) => rule.Name === 'PerAddress');
    expect(perAddress?.Statement.RateBasedStatement).toEqual({
      Limit: DEFAULT_CONTEXT.callerRequestsPerMinute * 10,
      EvaluationWindowSec: 60,
      AggregateKeyType: 'IP',
    });
  });

  it('is associated with the A2A stage', () => {
    const stageId = logicalIdAt(template, `A2aApi/RestApi/DeploymentStage.${TEST_STAGE}`);
    const associations = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(associations).toHaveLength(1);
    expect(JSON.stringify(associations[0]?.Properties.ResourceArn)).toContain(stageId);
    expect(associations[0]?.Properties.WebACLArn).toEqual({
      'Fn::GetAtt': [logicalIdAt(template, 'A2aApi/RateLimit/WebAcl'), 'Arn'],
    });
  });

  it('takes the limit from context, and refuses one below WAF’s minimum of 10', () => {
    const { stack } = buildApp({ bundle: false, context: { callerRequestsPerMinute: '600' } });
    expect(stack.config.callerRequestsPerMinute).toBe(600);
    expect(() => buildApp({ bundle: false, context: { callerRequestsPerMinute: '5' } })).toThrow(
      /callerRequestsPerMinute/
    );
  });
});
