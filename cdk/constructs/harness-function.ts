/**
 * The one way this project makes a Lambda (conventions §5.11, after Powertools'
 * function-with-logstream construct): Node 22 on ARM, an ESM bundle built by the local esbuild
 * (never Docker) with its source map beside it, X-Ray on, its own log group and a role that may
 * write only to that log group until a `bind…` call grants more.
 */
import { fileURLToPath } from 'node:url';
import { type Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, LayerVersion, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV } from './environment.js';
import { acknowledge, wildcardResourceFinding } from './nag.js';
import type { TurnMachineArns } from './turn-machine-arns.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A handler module under functions/handlers, by path: CDK bundles it, we never import it. */
export const handlerEntry = (name: string): string =>
  fileURLToPath(new URL(`../../functions/handlers/${name}.ts`, import.meta.url));

/**
 * ESM bundles have no `require`; some dependencies still call it for Node built-ins. The alias
 * keeps the banner's import from clashing with a bundled `createRequire` import.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __thCreateRequire } from 'node:module'; const require = __thCreateRequire(import.meta.url);";

/**
 * How every function is bundled, read by the tests that bundle the handlers as `cdk synth` does
 * (cdk/lambda-bundle.ts). Each function's bundle holds only what its handler imports: one
 * composition root per function (functions/composition/lambda/).
 */
export const LAMBDA_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  // A separate index.mjs.map, read at the first error, not at every cold start
  // (functions/adapters/system/lazy-source-maps.ts); positions only, without the sources.
  sourceMap: true,
  sourcesContent: false,
  // Error names survive minification: Step Functions Retry/Catch match on them.
  keepNames: true,
  // Ship the SDK versions the tests ran against, not whatever the runtime carries.
  bundleAwsSDK: true,
  externalModules: [],
  forceDockerBundling: false,
} as const satisfies BundlingOptions;

/**
 * What the turn step's bundle is built with for one model provider: every other provider's
 * adapter and SDK is left out of it (functions/composition/model.ts).
 */
export const modelProviderDefine = (provider: string): Record<string, string> => ({
  'globalThis.tinyHarnessBundledModelProvider': JSON.stringify(provider),
});

/**
 * The modules every Lambda bundle replaces, and with what (relative to the project root): the
 * SDK's default credential chain by the one source Lambda uses.
 */
export const LAMBDA_MODULE_ALIASES: Record<string, string> = {
  '@aws-sdk/credential-provider-node': './functions/adapters/aws/lambda-credentials.ts',
};

/** The modules the MCP client's bundle replaces, and with what (relative to the project root). */
export const MCP_LEFT_OUT_MODULES: Record<string, string> = {
  ajv: './functions/adapters/mcp/ajv-left-out.ts',
  'ajv-formats': './functions/adapters/mcp/ajv-left-out.ts',
};

/** The aliases of a bundle, with or without the MCP client. */
export const bundleAliases = (mcpServers: boolean | undefined): Record<string, string> => ({
  ...LAMBDA_MODULE_ALIASES,
  ...(mcpServers === true ? MCP_LEFT_OUT_MODULES : {}),
});

/**
 * What the turn and tool steps' bundles are built with for MCP: whether they hold the client
 * (functions/composition/step-tools.ts); when they do, the SDK's default validator (Ajv) is
 * left out, as the harness gives the client its own.
 */
export const mcpDefine = (connects: boolean): Record<string, string> => ({
  'globalThis.tinyHarnessBundledMcp': String(connects),
});

/**
 * A deployment's tracing (context `otelEndpoint`, `otelSampler`, `otelSamplerArg`,
 * `otelCollectorLayer`; docs/observability.md): what each traced function is given.
 */
export interface CloudTracing {
  /** The OTLP/HTTP endpoint (the collector layer's `http://localhost:4318`, or a collector's). */
  endpoint: string;
  sampler: string;
  samplerArg: number;
  serviceName: string;
  /** A layer running an OpenTelemetry collector beside the function (forwarding to X-Ray). */
  collectorLayerArn?: string | undefined;
}

/**
 * Whether a bundle holds tracing (functions/adapters/tracing/tracing.ts): without it, esbuild
 * leaves the OpenTelemetry API and SDK out, so a deployment that traces nothing pays nothing.
 */
export const tracingDefine = (traced: boolean): Record<string, string> => ({
  'globalThis.tinyHarnessBundledTracing': String(traced),
});

/** The standard OpenTelemetry variables a traced function reads (runtime-config.ts). */
export const tracingEnvironment = (tracing: CloudTracing): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: tracing.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_TRACES_SAMPLER: tracing.sampler,
  OTEL_TRACES_SAMPLER_ARG: String(tracing.samplerArg),
  OTEL_SERVICE_NAME: tracing.serviceName,
});

/** Reading a task: its record with its parts (Query), its pieces and listed records (BatchGetItem), its rows and the indexes (Query), a marker (GetItem). */
const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/** The DynamoDB actions a function may take on the table, by what it does with it. */
export const TABLE_ACCESS = {
  read: TABLE_READS,
  /**
   * Read and commit: a commit is one transaction of puts, updates, deletes (the inbox items it
   * folds) and condition checks, each authorized as its own action; a record is also put or
   * updated alone, and a push config deleted.
   */
  commit: [
    ...TABLE_READS,
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  /**
   * The migration at deployment: scans for the records an earlier build stored, commits each as
   * read (a transaction of puts) and writes its place in the scan (PutItem).
   */
  migrate: [
    ...TABLE_READS,
    'dynamodb:Scan',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  /** The archive: finds a closed execution's task (Query) and writes its history (PutItem). */
  archive: ['dynamodb:Query', 'dynamodb:PutItem'],
} as const;

export type TableAccess = keyof typeof TABLE_ACCESS;

export interface HarnessFunctionProps {
  /** Absolute path of the handler module (see `handlerEntry`); it must export `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly environment?: Record<string, string>;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /** @default none: the function draws on the account's unreserved concurrency */
  readonly reservedConcurrentExecutions?: number;
  /**
   * The model provider the function calls (the turn step's): its bundle holds that provider's
   * adapter and SDK and no other. @default none: the function calls no model
   */
  readonly modelProvider?: string;
  /**
   * Whether the function connects MCP servers (the turn and tool steps of a deployment that
   * configures them): its bundle holds the MCP client only then. @default none: the function connects none
   */
  readonly mcpServers?: boolean;
  /**
   * Where the function sends its spans: its bundle holds tracing only then. @default none: no
   * tracing, and no OpenTelemetry in the bundle
   */
  readonly tracing?: CloudTracing | undefined;
}

export class HarnessFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: HarnessFunctionProps) {
    // Created beside the function (not inside it): the function's props need them first.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole, whose logs:* on every log group is
    // more than a function with one known log group needs.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      ...(props.environment === undefined && props.tracing === undefined
        ? {}
        : {
            environment: {
              ...props.environment,
              ...(props.tracing === undefined ? {} : tracingEnvironment(props.tracing)),
            },
          }),
      bundling: {
        ...LAMBDA_BUNDLING,
        define: {
          ...(props.modelProvider === undefined ? {} : modelProviderDefine(props.modelProvider)),
          ...(props.mcpServers === undefined ? {} : mcpDefine(props.mcpServers)),
          ...tracingDefine(props.tracing !== undefined),
        },
        esbuildArgs: {
          '--alias': Object.entries(bundleAliases(props.mcpServers)).map(
            ([name, path]) => `${name}=${path}`
          ),
        },
      },
    });
    logGroup.grantWrite(role);
    const collector = props.tracing?.collectorLayerArn;
    if (collector !== undefined) {
      this.addLayers(LayerVersion.fromLayerVersionArn(this, 'OtelCollectorLayer', collector));
    }
    acknowledge(
      this,
      'AwsSolutions-L1',
      'Node.js 22 is the runtime the project pins (esbuild target node22, the local runtime, CI); a newer runtime is a deliberate upgrade with its own test run, not a silent default.'
    );
    acknowledge(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'The only "*" resource is X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords), which supports no resource-level permissions; the harness-stack test fails on any other.'
    );
  }

  /**
   * Names the table in the environment and grants the item actions of `access` on it and its
   * indexes, and no other: not Scan, BatchWriteItem or DescribeTable, which the grant helpers
   * add and no function sends (test/cdk/iam-calls.test.ts holds each role to its calls).
   */
  bindTable(options: { table: ITableV2; access: TableAccess }): void {
    this.addEnvironment(ENV.table, options.table.tableName);
    options.table.grant(this, ...TABLE_ACCESS[options.access]);
    if (this.role) {
      acknowledge(
        this.role,
        wildcardResourceFinding(this, `${options.table.tableArn}/index/*`),
        "The table's own global secondary indexes (by_context, by_participant, by_pending_start; KEYS_ONLY): index ARNs are <table ARN>/index/<name>, and the grant names no other table."
      );
    }
  }

  /**
   * Names the turn state machine in the environment. `drive`: start executions and answer task
   * tokens. `follow`: also ask whether an execution still runs (DescribeExecution: following a
   * wake revives a task whose execution is gone). `manage`: also stop executions (cutting a turn,
   * cancelling).
   */
  bindTurnMachine(options: {
    arns: TurnMachineArns;
    access: 'drive' | 'follow' | 'manage';
    /** Also read execution histories (the auditor's timeline, served over A2A). */
    readHistory?: boolean;
  }): void {
    const { arns, access } = options;
    this.addEnvironment(ENV.stateMachineArn, arns.stateMachineArn);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'states:StartExecution',
          'states:SendTaskSuccess',
          'states:SendTaskFailure',
          'states:SendTaskHeartbeat',
        ],
        resources: [arns.stateMachineArn],
      })
    );
    if (access === 'drive') return;
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'states:DescribeExecution',
          ...(access === 'manage' ? ['states:StopExecution'] : []),
          ...(options.readHistory === true ? ['states:GetExecutionHistory'] : []),
        ],
        resources: [arns.executionArnPattern],
      })
    );
    if (this.role) {
      acknowledge(
        this.role,
        wildcardResourceFinding(this, arns.executionArnPattern),
        "Execution names are per task and generation, known only at run time; the pattern covers executions of this stack's turn state machine and no other."
      );
    }
  }

  /**
   * Lets the function start remote children's followers (executions of the follow state
   * machine): at creation (the tool step), on a parent's cancel (the A2A function), when a
   * follower renews itself (the follow function).
   */
  bindFollowMachine(options: { arns: TurnMachineArns }): void {
    this.addEnvironment(ENV.followStateMachineArn, options.arns.stateMachineArn);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:StartExecution'],
        resources: [options.arns.stateMachineArn],
      })
    );
  }

  /**
   * Gives the function the directory of remote agents (it calls them) and lets it read exactly
   * the Secrets Manager secrets the directory names (bearer tokens, OAuth 2.0 client secrets).
   */
  bindRemoteAgents(options: { json: string; secretArns: readonly string[] }): void {
    this.#bindJsonWithSecrets(ENV.remoteAgents, options);
  }

  /**
   * Gives the function the MCP servers whose tools it lists or calls (the turn and tool steps) and lets it read
   * exactly the Secrets Manager secrets they name (bearer tokens, OAuth 2.0 client secrets).
   */
  bindMcpServers(options: { json: string; secretArns: readonly string[] }): void {
    this.#bindJsonWithSecrets(ENV.mcpServers, options);
  }

  /** A JSON configuration in `variable` ('' sets nothing), and read of exactly its secrets. */
  #bindJsonWithSecrets(
    variable: string,
    options: { json: string; secretArns: readonly string[] }
  ): void {
    if (options.json.trim() === '') return;
    this.addEnvironment(variable, options.json);
    if (options.secretArns.length === 0) return;
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [...options.secretArns],
      })
    );
  }

  /**
   * Names the key that seals push-notification secrets in the environment (so the function
   * seals with KMS, never with a per-process key) and grants what it does with it: `seal` (store
   * configs: encrypt, and decrypt to answer their owner) or `open` (deliver: decrypt only).
   */
  bindPushSecrets(options: { key: IKey; access: 'seal' | 'open' }): void {
    this.addEnvironment(ENV.pushKmsKeyId, options.key.keyArn);
    // Exactly Encrypt and Decrypt (grantEncryptDecrypt would add ReEncrypt* and GenerateDataKey*,
    // which a sealer that encrypts a few hundred bytes directly never calls).
    if (options.access === 'seal') options.key.grant(this, 'kms:Encrypt', 'kms:Decrypt');
    else options.key.grant(this, 'kms:Decrypt');
  }

  /**
   * Lets the function call the configured model: read the provider key's secret (and decrypt it,
   * when a customer managed key encrypts it), or invoke the Bedrock model (the foundation model,
   * and the cross-region inference profile of that id). Other providers need no AWS permission.
   */
  bindModel(options: {
    provider: string;
    model: string;
    apiKeySecretArn?: string | undefined;
    apiKeySecretKmsKeyArn?: string | undefined;
  }): void {
    const stack = Stack.of(this);
    if (options.apiKeySecretArn !== undefined) {
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [options.apiKeySecretArn],
        })
      );
    }
    if (options.apiKeySecretKmsKeyArn !== undefined) {
      // Only through Secrets Manager, for reading that secret: not a general use of the key.
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [options.apiKeySecretKmsKeyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.amazonaws.com` },
          },
        })
      );
    }
    if (options.provider !== 'bedrock') return;
    const { foundationModel, profile } = bedrockModelId(options.model);
    const resources = [
      stack.formatArn({
        service: 'bedrock',
        account: '',
        resource: 'foundation-model',
        resourceName: foundationModel,
      }),
    ];
    if (profile) {
      resources.push(
        // A cross-region (or global) inference profile may serve the model from any region.
        `arn:${stack.partition}:bedrock:*::foundation-model/${foundationModel}`,
        stack.formatArn({
          service: 'bedrock',
          resource: 'inference-profile',
          resourceName: options.model,
        })
      );
    }
    // The Converse API is authorized as bedrock:InvokeModel (there is no bedrock:Converse action).
    this.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources }));
    if (profile && this.role) {
      acknowledge(
        this.role,
        wildcardResourceFinding(this, resources[1] ?? ''),
        'A cross-region inference profile may serve the configured model from any region: the wildcard is the region of that one foundation model, nothing else.'
      );
    }
  }
}

/**
 * The geographic prefixes of Bedrock's cross-region inference profiles (`us.`, `eu.`, `apac.`,
 * `jp.`, `au.`, `ca.`, `us-gov.`, and `global.`): a model id with one is a profile id, and the
 * foundation model is the id without it.
 */
export const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

export const bedrockModelId = (model: string): { foundationModel: string; profile: boolean } => ({
  foundationModel: model.replace(INFERENCE_PROFILE_PREFIX, ''),
  profile: INFERENCE_PROFILE_PREFIX.test(model),
});
