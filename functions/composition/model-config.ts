import * as z from 'zod';
import { pricesWith } from '../core/loop/prices.js';
import { ModelPricesSchema } from '../core/loop/usage.js';

/**
 * The model's configuration: one schema for the runtime (read from the environment at cold start
 * or by `npm start`) and for `cdk synth` (which validates the very environment it gives the
 * turn-step function, so a deployment that would fail at its first model call fails at synth).
 */
export const MODEL_PROVIDERS = [
  'demo',
  'conformance',
  'scripted',
  'openai',
  'openai-chat',
  'anthropic',
  'bedrock',
] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Providers built into the harness: no model id, no key. */
const BUILT_IN_PROVIDERS: ReadonlySet<ModelProvider> = new Set(['demo', 'conformance', 'scripted']);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * A Secrets Manager secret's full ARN, with the six characters Secrets Manager appends to the
 * name: an IAM grant on a partial ARN (or a name) matches nothing, and the key is never read.
 */
export const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;

export const ModelConfigShape = {
  /**
   * `demo` (built in, no network), `conformance` (built in: plays the A2A conformance kit's
   * reference agent, docs/a2a/conformance.md), `scripted` (replies from TINY_HARNESS_MODEL_SCRIPT), `openai`
   * (Responses API), `openai-chat` (Chat Completions, any OpenAI-compatible base URL),
   * `anthropic` (Messages API), `bedrock` (Converse API).
   */
  TINY_HARNESS_MODEL_PROVIDER: z.enum(MODEL_PROVIDERS).default('demo'),
  TINY_HARNESS_MODEL: z.string().default(''),
  TINY_HARNESS_MODEL_SCRIPT: z.string().optional(),
  /** The only host a provider is called at (an OpenAI-compatible server, a proxy). */
  TINY_HARNESS_MODEL_BASE_URL: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
  TINY_HARNESS_MODEL_TIMEOUT_MS: positiveInt(60_000),
  /** Whether the configured model honours a task's reasoning_effort (else such a task is refused). */
  TINY_HARNESS_MODEL_REASONING: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** Secrets Manager secret (ARN, or a name locally) holding the provider's API key. */
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
        return pricesWith(ModelPricesSchema.parse(JSON.parse(text)));
      } catch {
        context.addIssue({
          code: 'custom',
          message:
            'not a price table: {"<model id>": {"input": 1.25, "cachedInput": 0.125, "output": 10}} (USD per million tokens)',
        });
        return z.NEVER;
      }
    }),
};
export type ModelVariable = keyof typeof ModelConfigShape;

const ModelConfigObject = z.object(ModelConfigShape);
export type ModelConfig = z.infer<typeof ModelConfigObject>;

/** What the person configuring calls each variable, and whether they deploy to the cloud. */
export interface ConfigNaming {
  /** `cdk synth`: no script file, no key in the environment, only a secret's full ARN. */
  readonly cloud: boolean;
  name(variable: ModelVariable): string;
}

/** The runtime's own names: the environment variables. */
export const ENVIRONMENT_NAMING: ConfigNaming = { cloud: false, name: (variable) => variable };

const KEY_VARIABLE: Partial<Record<ModelProvider, ModelVariable>> = {
  openai: 'OPENAI_API_KEY',
  'openai-chat': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** The problems of a configuration no single variable shows, each a sentence naming what to set. */
export const modelConfigProblems = (
  config: ModelConfig,
  naming: ConfigNaming
): Array<{ variable: ModelVariable; message: string }> => {
  const n = naming.name;
  const provider = config.TINY_HARNESS_MODEL_PROVIDER;
  const chosen = `${n('TINY_HARNESS_MODEL_PROVIDER')}=${provider}`;
  const problems: Array<{ variable: ModelVariable; message: string }> = [];
  if (provider === 'scripted') {
    if (naming.cloud) {
      problems.push({
        variable: 'TINY_HARNESS_MODEL_PROVIDER',
        message: `${chosen} replays a local script file, which a Lambda function does not have: deploy with demo, or a real provider (openai, openai-chat, anthropic, bedrock)`,
      });
    } else if (!config.TINY_HARNESS_MODEL_SCRIPT) {
      problems.push({
        variable: 'TINY_HARNESS_MODEL_SCRIPT',
        message: `${chosen} needs ${n('TINY_HARNESS_MODEL_SCRIPT')} (a JSON file)`,
      });
    }
  }
  if (!BUILT_IN_PROVIDERS.has(provider) && config.TINY_HARNESS_MODEL === '') {
    problems.push({
      variable: 'TINY_HARNESS_MODEL',
      message: `${chosen} needs ${n('TINY_HARNESS_MODEL')}=<model id>`,
    });
  }
  const keyVariable = KEY_VARIABLE[provider];
  const secret = config.TINY_HARNESS_MODEL_API_KEY_SECRET;
  if (
    keyVariable !== undefined &&
    secret === undefined &&
    config.TINY_HARNESS_MODEL_BASE_URL === undefined &&
    (naming.cloud || config[keyVariable] === undefined)
  ) {
    const sources = [
      ...(naming.cloud ? [] : [n(keyVariable)]),
      `${n('TINY_HARNESS_MODEL_API_KEY_SECRET')} (a Secrets Manager secret holding the key)`,
      `${n('TINY_HARNESS_MODEL_BASE_URL')} (a keyless OpenAI-compatible server or proxy)`,
    ];
    problems.push({
      variable: 'TINY_HARNESS_MODEL_API_KEY_SECRET',
      message: `${chosen} needs an API key: set ${sources.slice(0, -1).join(', ')} or ${sources.at(-1)}`,
    });
  }
  if (naming.cloud && secret !== undefined && !SECRET_ARN.test(secret)) {
    problems.push({
      variable: 'TINY_HARNESS_MODEL_API_KEY_SECRET',
      message: `${n('TINY_HARNESS_MODEL_API_KEY_SECRET')} must be the secret's full ARN, with the six characters Secrets Manager adds to its name (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf; aws secretsmanager describe-secret --secret-id <name> --query ARN)`,
    });
  }
  return problems;
};

/** The one schema: the variables, each checked, then the rules that join them. */
export const modelConfigSchema = (naming: ConfigNaming) =>
  ModelConfigObject.superRefine((config, context) => {
    for (const problem of modelConfigProblems(config, naming)) {
      context.addIssue({
        code: 'custom',
        path: [problem.variable],
        message: problem.message,
        // A whole sentence that names what to set: printed without the key in front.
        params: { sentence: true },
      });
    }
  });

/** A parse failure as one line: `<name>: <problem>; <name>: <problem>`. */
export const oneLineIssues = (
  error: z.ZodError,
  nameOf: (path: PropertyKey | undefined) => string
): string =>
  error.issues
    .map((issue) => {
      const name = nameOf(issue.path[0]);
      const sentence = issue.code === 'custom' && issue.params?.sentence === true;
      return name === '' || sentence ? issue.message : `${name}: ${issue.message}`;
    })
    .join('; ');
