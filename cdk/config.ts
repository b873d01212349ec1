/**
 * The deployment's configuration, from CDK context (`cdk.json` defaults, `-c key=value` on the
 * command line, or `buildApp({ context })` in-process). Validated at synthesis so a bad value
 * fails `cdk synth` with one line naming the key, not a Lambda cold start in the cloud. The
 * model's keys are checked by the runtime's own schema (functions/composition/model-config.ts),
 * applied to the environment the turn and tool step functions will get.
 */
import type { Construct } from 'constructs';
import * as z from 'zod';
import {
  cloudMcpServersProblems,
  parseMcpServers,
} from '../functions/composition/mcp-servers-config.js';
import {
  type ConfigNaming,
  type ModelVariable,
  modelConfigSchema,
  oneLineIssues,
} from '../functions/composition/model-config.js';
import {
  cloudRemoteAgentsProblems,
  parseRemoteAgents,
} from '../functions/composition/remote-agents-config.js';
import { RuntimeConfigSchema } from '../functions/composition/runtime-config.js';
import { TracingConfigShape } from '../functions/composition/tracing-config.js';
import { parseAgentSkills } from '../functions/core/a2a/agent-card.js';
import { namedTaskTypes, OTHER_TASK_TYPE } from '../functions/core/loop/spend-metric.js';

/** The defaults `cdk.json` repeats (a test keeps the two equal). */
export const DEFAULT_CONTEXT = {
  stage: 'dev',
  modelProvider: 'demo',
  model: '',
  logLevel: 'info',
  turnsPerGeneration: 200,
  criteriaReminders: 2,
  defaultBudget: '{}',
  budgetAlarmShare: 0.8,
  parkTimeoutDays: 7,
  modelBaseUrl: '',
  modelReasoning: 'false',
  modelApiKeySecret: '',
  modelApiKeySecretKmsKey: '',
  modelPrices: '{}',
  callerRequestsPerMinute: 120,
  turnStepReservedConcurrency: 20,
  a2aReservedConcurrency: 100,
  streamsPerCaller: 4,
  auditArchiveRetentionDays: 0,
  agentSkills: '',
  taskLifecycle: 'conversation',
  remoteAgents: '',
  mcpServers: '',
  userPoolDeletionProtection: true,
  otelEndpoint: '',
  otelSampler: 'parentbased_always_on',
  otelSamplerArg: 1,
  otelCollectorLayer: '',
} as const;

export type ContextKey = keyof typeof DEFAULT_CONTEXT;

/** The context key behind each model variable the stack sets on the turn-step function. */
export const MODEL_CONTEXT_KEYS: Partial<Record<ModelVariable, ContextKey>> = {
  TINY_HARNESS_MODEL_PROVIDER: 'modelProvider',
  TINY_HARNESS_MODEL: 'model',
  TINY_HARNESS_MODEL_BASE_URL: 'modelBaseUrl',
  TINY_HARNESS_MODEL_REASONING: 'modelReasoning',
  TINY_HARNESS_MODEL_API_KEY_SECRET: 'modelApiKeySecret',
  TINY_HARNESS_MODEL_PRICES: 'modelPrices',
};

const CONTEXT_NAMING: ConfigNaming = {
  cloud: true,
  name: (variable) => MODEL_CONTEXT_KEYS[variable] ?? variable,
};

// `-c key=value` always arrives as a string: numbers are coerced.
const positiveInt = z.coerce.number().int().positive();
/** 0 = no reservation (the function draws on the account's unreserved pool). */
const reservation = z.coerce.number().int().min(0).max(10_000);

const BUDGET_ALARM_SHARE =
  'a share of a budget, more than 0 and at most 1 (0.8 alarms when a task has used 80% of it)';

/** Cognito refuses a hosted-domain prefix containing these words (the prefix holds the stage). */
const RESERVED_DOMAIN_WORDS = /aws|amazon|cognito/i;

/**
 * A JSON configuration given as JSON text or as an object in cdk.json, normalized to JSON text and
 * held to the runtime's schema and the cloud's rules by `problems` (which throws for text the
 * schema refuses: `refused` then prefixes its message).
 */
const cloudJsonConfig = (problems: (text: string) => string[], refused: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .transform((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
    .superRefine((text, context) => {
      try {
        for (const problem of problems(text))
          context.addIssue({ code: 'custom', message: problem });
      } catch (error) {
        context.addIssue({ code: 'custom', message: `${refused}: ${(error as Error).message}` });
      }
    });

const HarnessConfigSchema = z.object({
  /**
   * The API Gateway stage and the stack-name suffix (`TinyHarness-<stage>`; the state machine is
   * `<stack>-turns`, at most 80 characters): letters, digits and "-". It is also part of the
   * Cognito domain prefix, which may not contain "aws", "amazon" or "cognito".
   */
  stage: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,40}$/, 'letters, digits and "-", at most 40')
    .refine(
      (stage) => !RESERVED_DOMAIN_WORDS.test(stage),
      'may not contain "aws", "amazon" or "cognito": it is part of the Cognito domain prefix (harness-<stage>-<account>), which Cognito refuses with those words'
    ),
  modelProvider: z.string(),
  model: z.string(),
  logLevel: RuntimeConfigSchema.shape.TINY_HARNESS_LOG_LEVEL,
  turnsPerGeneration: positiveInt,
  /** Reminders of unmet acceptance criteria before a delegated task parks for review (0: none). */
  criteriaReminders: RuntimeConfigSchema.shape.TINY_HARNESS_CRITERIA_REMINDERS,
  /** The budget a new task starts with, by task type: JSON text or an object in cdk.json. */
  defaultBudget: cloudJsonConfig((text) => {
    const parsed = RuntimeConfigSchema.shape.TINY_HARNESS_DEFAULT_BUDGET.safeParse(text);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  }, 'not a budget by task type'),
  /**
   * The share of a budget whose use raises a task type's budget alarm (with `defaultBudget` set):
   * 0.8 alarms when a task's tree has used 80% of any limit of its budget.
   */
  budgetAlarmShare: z.coerce
    .number({ error: BUDGET_ALARM_SHARE })
    .gt(0, BUDGET_ALARM_SHARE)
    .max(1, BUDGET_ALARM_SHARE),
  /**
   * How long a parked execution waits before it renews itself. The local interpreter's timers
   * overflow past 24.8 days and a Standard execution lives at most a year, so keep it well
   * inside both.
   */
  parkTimeoutDays: positiveInt.max(24),
  modelBaseUrl: z.string(),
  modelReasoning: z.string(),
  modelApiKeySecret: z.string(),
  /** The customer managed KMS key the secret is encrypted with ('' = aws/secretsmanager). */
  modelApiKeySecretKmsKey: z.union([
    z.literal(''),
    z
      .string()
      .regex(
        /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/,
        "the KMS key's ARN (arn:aws:kms:<region>:<account>:key/<key id>)"
      ),
  ]),
  modelPrices: z.string(),
  /**
   * Requests one caller (one access token) may make a minute, enforced by a WAF rate rule on the
   * stage; the local shim's default is the same. WAF counts at least 10 per window.
   */
  callerRequestsPerMinute: positiveInt.min(10),
  turnStepReservedConcurrency: reservation,
  a2aReservedConcurrency: reservation,
  /** Server-Sent Event streams one caller may hold open at once. */
  streamsPerCaller: positiveInt.max(100),
  /**
   * Days an archived execution history is kept after its execution closed (an auditor reads it
   * once Step Functions has deleted its own, 90 days on); 0 keeps it as long as the task.
   */
  auditArchiveRetentionDays: z.coerce.number().int().min(0),
  /** The lifecycle of a task a client starts: `conversation` or `delegated`. */
  taskLifecycle: RuntimeConfigSchema.shape.TINY_HARNESS_TASK_LIFECYCLE,
  /** The agent card's skills, a JSON array ('' = the built-in skill); see docs/configuration.md. */
  /**
   * The directory of remote agents (docs/remote-agents.md), JSON text or an object in cdk.json:
   * held to the runtime's schema and to the cloud's rules (secrets from Secrets Manager by full
   * ARN, https only). Normalized to JSON text.
   */
  remoteAgents: cloudJsonConfig(
    (text) => cloudRemoteAgentsProblems(parseRemoteAgents(text)),
    'not a remote agents directory'
  ),
  /**
   * The MCP servers whose tools the agent may call (docs/configuration.md, "MCP servers"), JSON
   * text or an object in cdk.json: held to the runtime's schema and to the cloud's rules
   * (Streamable HTTP over https only, secrets from Secrets Manager by full ARN). Normalized to
   * JSON text.
   */
  mcpServers: cloudJsonConfig(
    (text) => cloudMcpServersProblems(parseMcpServers(text)),
    'not an MCP servers list'
  ),
  /**
   * Whether the user pool refuses DeleteUserPool. On unless a dev stack turns it off: the pool
   * holds every caller's identity, and is retained when the stack is deleted either way.
   */
  userPoolDeletionProtection: z.union(
    [z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')],
    'true or false'
  ),
  /**
   * Where every function sends its spans (OTLP/HTTP JSON; docs/observability.md): '' = no
   * tracing, and no OpenTelemetry in any bundle. With the collector layer below it is the layer's
   * local receiver (`http://localhost:4318`), which forwards to X-Ray with the function's role.
   */
  otelEndpoint: z.union([z.literal(''), z.string().url()]),
  otelSampler: TracingConfigShape.OTEL_TRACES_SAMPLER,
  otelSamplerArg: TracingConfigShape.OTEL_TRACES_SAMPLER_ARG,
  /** A Lambda layer that runs an OpenTelemetry collector beside each function ('' = none). */
  otelCollectorLayer: z.union([
    z.literal(''),
    z
      .string()
      .regex(
        /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/,
        "a layer version's ARN (arn:aws:lambda:<region>:<account>:layer:<name>:<version>)"
      ),
  ]),
  agentSkills: z.string().superRefine((text, context) => {
    if (text.trim() === '') return;
    try {
      parseAgentSkills(text);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: `not a skills list: ${(error as Error).message}`,
      });
    }
  }),
});

export type HarnessConfig = z.infer<typeof HarnessConfigSchema>;

/** A configuration `cdk synth` refuses; its message is one line and names the keys. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/**
 * The model environment the stack gives the turn and tool step functions ('' values are left
 * unset): the turn step calls the model, the tool step gives a new sub-task the default model.
 */
export const turnStepModelEnvironment = (config: HarnessConfig): Record<string, string> =>
  Object.fromEntries(
    Object.entries(MODEL_CONTEXT_KEYS)
      .map(([variable, key]) => [variable, String(config[key as ContextKey])])
      .filter(([, value]) => value !== '')
  );

/** The deployment's tracing, or none when `otelEndpoint` is empty (docs/observability.md). */
export const cloudTracingOf = (config: HarnessConfig, serviceName: string) =>
  config.otelEndpoint === ''
    ? undefined
    : {
        endpoint: config.otelEndpoint,
        sampler: config.otelSampler,
        samplerArg: config.otelSamplerArg,
        serviceName,
        collectorLayerArn: config.otelCollectorLayer || undefined,
      };

/**
 * The budget alarms (docs/deploy.md, "Alarms"): one per task type `defaultBudget` names, and one
 * for every other type (`other`, the metric's bucket), at `budgetAlarmShare`. None without default
 * budgets: a deployment that sets none has no budget to watch but those `set_budget` gives.
 */
export const budgetAlarmsOf = (
  config: HarnessConfig
): { taskTypes: string[]; share: number } | undefined => {
  const defaults = RuntimeConfigSchema.shape.TINY_HARNESS_DEFAULT_BUDGET.parse(
    config.defaultBudget
  );
  if (Object.keys(defaults).length === 0) return undefined;
  return {
    taskTypes: [...new Set([...namedTaskTypes(defaults), OTHER_TASK_TYPE])],
    share: config.budgetAlarmShare,
  };
};

/** Partitions where the stack's Cognito user pool (Plus plan, threat protection) is not offered. */
const UNSUPPORTED_REGION = /^(cn|us-gov|us-iso[a-z]*|eu-isoe)-/;

/** `region`: where the CLI deploys (CDK_DEFAULT_REGION), when it knows. */
export const readHarnessConfig = (scope: Construct, region?: string): HarnessConfig => {
  const raw = Object.fromEntries(
    Object.entries(DEFAULT_CONTEXT).map(([key, fallback]) => [
      key,
      scope.node.tryGetContext(key) ?? fallback,
    ])
  );
  const parsed = HarnessConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigurationError(
      `invalid CDK context: ${oneLineIssues(parsed.error, (path) => String(path ?? ''))}`
    );
  }
  const config = parsed.data;
  const model = modelConfigSchema(CONTEXT_NAMING).safeParse(turnStepModelEnvironment(config));
  if (!model.success) {
    throw new ConfigurationError(
      `invalid CDK context: ${oneLineIssues(model.error, (path) =>
        CONTEXT_NAMING.name(path as ModelVariable)
      )}`
    );
  }
  if (config.modelProvider === 'bedrock' && config.model.startsWith('arn:')) {
    throw new ConfigurationError(
      'invalid CDK context: model: with modelProvider=bedrock, give a model id (anthropic.claude-…) or an inference profile id (us.anthropic.claude-…), not an ARN'
    );
  }
  if (config.modelApiKeySecretKmsKey !== '' && config.modelApiKeySecret === '') {
    throw new ConfigurationError(
      'invalid CDK context: modelApiKeySecretKmsKey is the key of modelApiKeySecret: set the secret too'
    );
  }
  if (region !== undefined && UNSUPPORTED_REGION.test(region)) {
    throw new ConfigurationError(
      `invalid deployment region ${region}: the stack's Cognito user pool (Plus feature plan, threat protection) is offered only in the commercial aws partition (docs/deploy.md, "Where it deploys")`
    );
  }
  return config;
};
