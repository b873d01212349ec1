import * as z from 'zod';
import { parseAgentSkills } from '../core/a2a/agent-card.js';
import { DEFAULT_AGENT_ID } from '../core/a2a/identifiers.js';
import { BudgetSchema } from '../core/task/extension.schema.js';
import { parseBearerTokens } from '../service/identity.js';
import { mcpServerSecrets, parseMcpServers } from './mcp-servers-config.js';
import {
  ENVIRONMENT_NAMING,
  ModelConfigShape,
  modelConfigSchema,
  oneLineIssues,
} from './model-config.js';
import { environmentSecrets, parseRemoteAgents } from './remote-agents-config.js';
import { secretListOf } from './secret-list.js';
import { TracingConfigShape } from './tracing-config.js';

/** How an access token names the participant unless TINY_HARNESS_PARTICIPANT_CLAIM says otherwise. */
export const DEFAULT_PARTICIPANT_CLAIM = 'cognito:username';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const DefaultBudgetsSchema = z.record(z.string().min(1), BudgetSchema);

const parseJsonOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * The runtime's configuration, from the environment (the CDK stack sets it on every Lambda; the
 * local runtime sets it for its in-process handlers). Validated once per cold start: a bad value
 * fails the start with a message naming it, never a request later.
 */
export const RuntimeConfigSchema = z.object({
  TINY_HARNESS_TABLE: z.string().min(1),
  TINY_HARNESS_STATE_MACHINE_ARN: z.string().startsWith('arn:'),
  TINY_HARNESS_AGENT_ID: z.string().min(1).default(DEFAULT_AGENT_ID),
  /** The agent card's skills, a JSON array (docs/configuration.md); unset: the built-in one. */
  TINY_HARNESS_AGENT_SKILLS: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text.trim() === '') return undefined;
      try {
        return parseAgentSkills(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** The deployment's stage (the stack sets it): a dimension of the turn step's metrics. */
  TINY_HARNESS_STAGE: z.string().min(1).default('local'),
  TINY_HARNESS_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** The model's variables (model-config.ts): the same schema `cdk synth` checks. */
  ...ModelConfigShape,
  /**
   * The lifecycle of a task a client starts: `conversation` (parks after each turn until a
   * participant ends it) or `delegated` (worked to its end and completed by the agent).
   */
  TINY_HARNESS_TASK_LIFECYCLE: z.enum(['conversation', 'delegated']).default('conversation'),
  TINY_HARNESS_TURNS_PER_GENERATION: positiveInt(200),
  TINY_HARNESS_MAX_TURNS: positiveInt(50),
  /**
   * Times a delegated task's model is told, in a row, which acceptance criteria keep it from
   * completing before it parks for its reporter's review; 0 parks at once.
   */
  TINY_HARNESS_CRITERIA_REMINDERS: z.coerce.number().int().min(0).max(20).default(2),
  /**
   * The budget a new task starts with, by task type, `*` for any other:
   * `{"*": {"usd": 5}, "research": {"model_calls": 40}}`. None by default.
   */
  TINY_HARNESS_DEFAULT_BUDGET: z
    .string()
    .default('{}')
    .transform((text, context) => {
      const parsed = DefaultBudgetsSchema.safeParse(parseJsonOrUndefined(text));
      if (parsed.success) return parsed.data;
      context.addIssue({
        code: 'custom',
        message: `not a budget by task type: {"*": {"usd": 5}, "<task type>": {"model_calls": 40}} (${parsed.error.issues[0]?.message ?? 'not JSON'})`,
      });
      return z.NEVER;
    }),
  TINY_HARNESS_BASE_URL: z.string().url().optional(),
  /** The web renderer's origin (`https://<distribution>`), whose pages may read the answers (CORS). */
  TINY_HARNESS_WEB_ORIGIN: z
    .string()
    .regex(
      /^https?:\/\/[^/]+$/,
      'an origin: scheme and host, no path (https://d111.cloudfront.net)'
    )
    .optional(),
  /** Local endpoints (DynamoDB Local, the local Step Functions service); unset in the cloud. */
  TINY_HARNESS_DYNAMODB_ENDPOINT: z.string().url().optional(),
  TINY_HARNESS_SFN_ENDPOINT: z.string().url().optional(),
  /** `tokens`: bearer tokens from TINY_HARNESS_BEARER_TOKENS (local); `cognito`: the API's authorizer. */
  TINY_HARNESS_AUTH_MODE: z.enum(['tokens', 'cognito']).default('tokens'),
  /** Local callers, `token=participant,token=participant`. Secrets: never logged. */
  TINY_HARNESS_BEARER_TOKENS: z
    .string()
    .default('')
    .transform((text, context) => {
      try {
        return parseBearerTokens(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** The verified claim that names the participant (Cognito); falls back to username, then sub. */
  TINY_HARNESS_PARTICIPANT_CLAIM: z.string().min(1).default(DEFAULT_PARTICIPANT_CLAIM),
  TINY_HARNESS_OAUTH_TOKEN_URL: z.string().url().optional(),
  /** The local API's per-client throttle (API Gateway throttles in the cloud). */
  TINY_HARNESS_THROTTLE_PER_MINUTE: positiveInt(120),
  TINY_HARNESS_THROTTLE_BURST: positiveInt(30),
  /** Server-Sent Event streams one caller may hold open at once (each holds a Lambda instance). */
  TINY_HARNESS_STREAMS_PER_CALLER: positiveInt(4),
  /**
   * Allows http to loopback addresses, for local testing only: push webhooks, and a remote
   * agent's endpoint at its own loopback card's origin (docs/remote-agents.md).
   */
  TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * The KMS key that seals push-notification tokens and credentials (the stack sets it); unset:
   * the local AES-256-GCM sealer.
   */
  TINY_HARNESS_PUSH_KMS_KEY_ID: z.string().min(1).optional(),
  /**
   * The local sealer's key: 32 bytes in base64 (`openssl rand -base64 32`). Unset: `npm start`
   * keeps one in its data directory; otherwise a random key per process (sealed tokens then die
   * with it). A secret: never logged.
   */
  TINY_HARNESS_PUSH_TOKEN_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'must be 32 bytes in base64 (openssl rand -base64 32)')
    .optional(),
  /**
   * The directory of remote A2A agents a task may delegate to (docs/remote-agents.md): JSON,
   * agent id → card URL, credentials, following. Unset: none.
   */
  TINY_HARNESS_REMOTE_AGENTS: z
    .string()
    .optional()
    .transform((text, context) => {
      try {
        return parseRemoteAgents(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /**
   * The MCP servers whose tools the agent may call (docs/configuration.md): JSON, server name →
   * Streamable HTTP URL or local command, bearer token source, allow-list. Unset: none.
   */
  TINY_HARNESS_MCP_SERVERS: z
    .string()
    .optional()
    .transform((text, context) => {
      try {
        return parseMcpServers(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** The state machine of remote children's stand-ins (the stack sets it; npm start too). */
  TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN: z.string().startsWith('arn:').optional(),
  AWS_REGION: z.string().default('us-east-1'),
  /** OpenTelemetry's variables and ours (docs/observability.md). */
  ...TracingConfigShape,
});

/**
 * The runtime's configuration, with the values of the secrets the remote agents' directory names
 * in the environment (locally): read once, with the rest, and never logged.
 */
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema> & {
  remoteAgentSecrets: ReadonlyMap<string, string>;
  /** The MCP servers' bearer tokens, by the variable that holds each: secrets, never logged. */
  mcpServerSecrets: ReadonlyMap<string, string>;
};

/** A configuration the runtime cannot start with; its message is one line naming each problem. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

export const readRuntimeConfig = (
  env: Record<string, string | undefined> = process.env
): RuntimeConfig => {
  const parsed = RuntimeConfigSchema.safeParse(env);
  // The model's own rules (a provider without its model id, key or script) in the same words
  // `cdk synth` uses for them.
  const model = modelConfigSchema(ENVIRONMENT_NAMING).safeParse(env);
  const error = parsed.error ?? model.error;
  if (error !== undefined || !parsed.success) {
    throw new ConfigurationError(
      `invalid tiny-harness configuration: ${oneLineIssues(error as z.ZodError, (path) => String(path ?? ''))}`
    );
  }
  const secrets = environmentSecrets(parsed.data.TINY_HARNESS_REMOTE_AGENTS, env);
  if (secrets.missing.length > 0) {
    throw new ConfigurationError(
      `invalid tiny-harness configuration: TINY_HARNESS_REMOTE_AGENTS: ${secrets.missing.join('; ')}`
    );
  }
  const mcp = mcpServerSecrets(parsed.data.TINY_HARNESS_MCP_SERVERS, env);
  if (mcp.missing.length > 0) {
    throw new ConfigurationError(
      `invalid tiny-harness configuration: TINY_HARNESS_MCP_SERVERS: ${mcp.missing.join('; ')}`
    );
  }
  return { ...parsed.data, remoteAgentSecrets: secrets.values, mcpServerSecrets: mcp.values };
};

/**
 * The configured secrets no log line, stored message or echoed text may carry. The same list for
 * a configuration every time, and it grows: a secret read from Secrets Manager after start joins
 * it as it is read (`rememberSecret`, secret-list.ts).
 */
export const configuredSecrets = (config: RuntimeConfig): readonly string[] =>
  secretListOf(config, () =>
    [
      ...config.TINY_HARNESS_BEARER_TOKENS.keys(),
      config.OPENAI_API_KEY,
      config.ANTHROPIC_API_KEY,
      config.TINY_HARNESS_PUSH_TOKEN_KEY,
      ...config.remoteAgentSecrets.values(),
      ...config.mcpServerSecrets.values(),
      ...Object.values(config.OTEL_EXPORTER_OTLP_HEADERS),
    ].filter((secret): secret is string => secret !== undefined)
  );
