/**
 * The deployment's configuration, from CDK context (`cdk.json` defaults, `-c key=value` on the
 * command line, or `buildApp({ context })` in-process). Validated at synthesis so a bad value
 * fails `cdk synth`, not a Lambda cold start in the cloud.
 */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { RuntimeConfigSchema } from '../functions/composition/runtime-config.js';
import { parseAgentSkills } from '../functions/core/a2a/agent-card.js';
import { ModelPricesSchema } from '../functions/core/loop/usage.js';

/** The defaults `cdk.json` repeats (a test keeps the two equal). */
export const DEFAULT_CONTEXT = {
  stage: 'dev',
  modelProvider: 'demo',
  model: '',
  logLevel: 'info',
  turnsPerGeneration: 200,
  parkTimeoutDays: 7,
  modelBaseUrl: '',
  modelReasoning: 'false',
  modelApiKeySecret: '',
  modelPrices: '{}',
  callerRequestsPerMinute: 120,
  agentSkills: '',
  taskLifecycle: 'conversation',
} as const;

// `-c key=value` always arrives as a string: numbers are coerced.
const positiveInt = z.coerce.number().int().positive();

const HarnessConfigSchema = z.object({
  /**
   * The API Gateway stage and the stack-name suffix (`TinyHarness-<stage>`; the state machine is
   * `<stack>-turns`, at most 80 characters): letters, digits and "-".
   */
  stage: z.string().regex(/^[A-Za-z0-9-]{1,40}$/, 'letters, digits and "-", at most 40'),
  // The runtime's own schema is the source of truth for what a Lambda accepts at cold start.
  modelProvider: RuntimeConfigSchema.shape.TINY_HARNESS_MODEL_PROVIDER,
  model: z.string(),
  logLevel: RuntimeConfigSchema.shape.TINY_HARNESS_LOG_LEVEL,
  turnsPerGeneration: positiveInt,
  /**
   * How long a parked execution waits before it renews itself. The local interpreter's timers
   * overflow past 24.8 days and a Standard execution lives at most a year, so keep it well
   * inside both.
   */
  parkTimeoutDays: positiveInt.max(24),
  /** The only host the provider is called at (an OpenAI-compatible server); '' = the provider's own. */
  modelBaseUrl: z.union([z.literal(''), z.string().url()]),
  /** Whether the model honours a task's reasoning_effort. */
  modelReasoning: z.enum(['true', 'false']),
  /** Secrets Manager secret ARN holding the provider's API key ('' = none; Bedrock needs none). */
  modelApiKeySecret: z.union([z.literal(''), z.string().startsWith('arn:aws')]),
  /** Prices per model id in USD per million tokens (JSON), for each task's cost ledger. */
  /**
   * Requests one caller (one access token) may make a minute, enforced by a WAF rate rule on the
   * stage; the local shim's default is the same. WAF counts at least 10 per window.
   */
  callerRequestsPerMinute: positiveInt.min(10),
  /** The lifecycle of a task a client starts: `conversation` or `delegated`. */
  taskLifecycle: RuntimeConfigSchema.shape.TINY_HARNESS_TASK_LIFECYCLE,
  /** The agent card's skills, a JSON array ('' = the built-in skill); see docs/configuration.md. */
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
  modelPrices: z.string().refine((text) => {
    try {
      return ModelPricesSchema.safeParse(JSON.parse(text)).success;
    } catch {
      return false;
    }
  }, 'a JSON price table: {"<model id>": {"input": 1.25, "cachedInput": 0.125, "output": 10}}'),
});

export type HarnessConfig = z.infer<typeof HarnessConfigSchema>;

export type ContextKey = keyof typeof DEFAULT_CONTEXT;

export const readHarnessConfig = (scope: Construct): HarnessConfig => {
  const raw = Object.fromEntries(
    Object.entries(DEFAULT_CONTEXT).map(([key, fallback]) => [
      key,
      scope.node.tryGetContext(key) ?? fallback,
    ])
  );
  const parsed = HarnessConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid CDK context: ${z.prettifyError(parsed.error)}`);
  }
  const { modelProvider, model } = parsed.data;
  if (!['demo', 'conformance', 'scripted'].includes(modelProvider) && model === '') {
    throw new Error(
      `invalid CDK context: modelProvider=${modelProvider} needs -c model=<model id>`
    );
  }
  return parsed.data;
};
