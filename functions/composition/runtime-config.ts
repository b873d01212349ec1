import { z } from 'zod';
import { parseAgentSkills } from '../core/a2a/agent-card.js';
import { DEFAULT_AGENT_ID } from '../core/a2a/identifiers.js';
import { ModelPricesSchema } from '../core/loop/usage.js';
import { parseBearerTokens } from '../service/identity.js';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

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
  TINY_HARNESS_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /**
   * `demo` (built in, no network), `conformance` (built in: plays the A2A conformance kit's
   * reference agent, docs/a2a/conformance.md), `scripted` (replies from TINY_HARNESS_MODEL_SCRIPT), `openai`
   * (Responses API), `openai-chat` (Chat Completions, any OpenAI-compatible base URL),
   * `anthropic` (Messages API), `bedrock` (Converse API).
   */
  TINY_HARNESS_MODEL_PROVIDER: z
    .enum(['demo', 'conformance', 'scripted', 'openai', 'openai-chat', 'anthropic', 'bedrock'])
    .default('demo'),
  TINY_HARNESS_MODEL: z.string().default(''),
  /**
   * The lifecycle of a task a client starts: `conversation` (parks after each turn until a
   * participant ends it) or `delegated` (worked to its end and completed by the agent).
   */
  TINY_HARNESS_TASK_LIFECYCLE: z.enum(['conversation', 'delegated']).default('conversation'),
  TINY_HARNESS_MODEL_SCRIPT: z.string().optional(),
  /** The only host a provider is called at (an OpenAI-compatible server, a proxy). */
  TINY_HARNESS_MODEL_BASE_URL: z.string().url().optional(),
  TINY_HARNESS_MODEL_TIMEOUT_MS: positiveInt(60_000),
  /** Whether the configured model honours a task's reasoning_effort (else such a task is refused). */
  TINY_HARNESS_MODEL_REASONING: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** Secrets Manager secret (ARN or name) holding the provider's API key, in the cloud. */
  TINY_HARNESS_MODEL_API_KEY_SECRET: z.string().min(1).optional(),
  /** Locally, the provider's key comes from the environment; never logged. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /**
   * Prices in USD per million tokens, per model id:
   * `{"gpt-x": {"input": 1.25, "cachedInput": 0.125, "output": 10}}`. Unpriced models cost 0.
   */
  TINY_HARNESS_MODEL_PRICES: z
    .string()
    .default('{}')
    .transform((text, context) => {
      try {
        return ModelPricesSchema.parse(JSON.parse(text));
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: `not a price table: ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    }),
  TINY_HARNESS_TURNS_PER_GENERATION: positiveInt(200),
  TINY_HARNESS_MAX_TURNS: positiveInt(50),
  TINY_HARNESS_BASE_URL: z.string().url().optional(),
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
  TINY_HARNESS_PARTICIPANT_CLAIM: z.string().min(1).default('cognito:username'),
  TINY_HARNESS_OAUTH_TOKEN_URL: z.string().url().optional(),
  /** The local API's per-client throttle (API Gateway throttles in the cloud). */
  TINY_HARNESS_THROTTLE_PER_MINUTE: positiveInt(120),
  TINY_HARNESS_THROTTLE_BURST: positiveInt(30),
  /** Allows http webhooks to loopback addresses: for local testing only. */
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
  AWS_REGION: z.string().default('us-east-1'),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

/** Providers built into the harness: no model id, no key. */
const BUILT_IN_PROVIDERS: ReadonlySet<string> = new Set(['demo', 'conformance', 'scripted']);

export const readRuntimeConfig = (
  env: Record<string, string | undefined> = process.env
): RuntimeConfig => {
  const parsed = RuntimeConfigSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid tiny-harness configuration: ${z.prettifyError(parsed.error)}`);
  }
  const config = parsed.data;
  const provider = config.TINY_HARNESS_MODEL_PROVIDER;
  if (provider === 'scripted' && !config.TINY_HARNESS_MODEL_SCRIPT) {
    throw new Error(
      'TINY_HARNESS_MODEL_PROVIDER=scripted needs TINY_HARNESS_MODEL_SCRIPT (a JSON file)'
    );
  }
  if (!BUILT_IN_PROVIDERS.has(provider) && config.TINY_HARNESS_MODEL === '') {
    throw new Error(
      `TINY_HARNESS_MODEL_PROVIDER=${provider} needs TINY_HARNESS_MODEL (the model id)`
    );
  }
  return config;
};

/** The configured secrets no log line, stored message or echoed text may carry. */
export const configuredSecrets = (config: RuntimeConfig): string[] =>
  [
    ...config.TINY_HARNESS_BEARER_TOKENS.keys(),
    config.OPENAI_API_KEY,
    config.ANTHROPIC_API_KEY,
    config.TINY_HARNESS_PUSH_TOKEN_KEY,
  ].filter((secret): secret is string => secret !== undefined);
