import { ConformanceModel } from '../adapters/model/conformance-model.js';
import { DemoModel } from '../adapters/model/demo-model.js';
import { LazyModel } from '../adapters/model/lazy-model.js';
import type { ProviderModelOptions } from '../adapters/model/provider-options.js';
import { loadModelScript } from '../adapters/model/script-file.js';
import type { Model } from '../core/ports/model.js';
import { ConfigurationError, type RuntimeConfig } from './runtime-config.js';
import { rememberSecret } from './secret-list.js';

declare global {
  /**
   * The one model provider a Lambda bundle holds. `cdk synth` builds the turn step with this
   * replaced by the provider it configures (esbuild's `define`, in
   * cdk/constructs/harness-function.ts): the test in each other provider's case below becomes
   * `false`, and esbuild leaves that provider's adapter and SDK out of the bundle. Unbundled
   * (`npm start`, the tests) it is undefined, and every provider is there.
   */
  var tinyHarnessBundledModelProvider: string | undefined;
}

/**
 * A provider's model built on its first call, with the key from Secrets Manager when a secret is
 * configured, else the one from the environment. (Top-level, so that esbuild leaves it, and the
 * Secrets Manager client, out of a bundle whose provider takes no key.)
 */
const keyedModel = (
  config: RuntimeConfig,
  envKey: string | undefined,
  make: (options: ProviderModelOptions) => Promise<Model>
): Model =>
  new LazyModel(async () => {
    const secret = config.TINY_HARNESS_MODEL_API_KEY_SECRET;
    const apiKey =
      secret === undefined
        ? envKey
        : await (await import('../adapters/model/secret-key.js')).readApiKeySecret(
            secret,
            config.AWS_REGION
          );
    // Masked from here on: a provider's error or a log line may echo the key.
    if (secret !== undefined && apiKey !== undefined) rememberSecret(config, apiKey);
    return make({
      model: config.TINY_HARNESS_MODEL,
      baseUrl: config.TINY_HARNESS_MODEL_BASE_URL,
      apiKey,
      timeoutMs: config.TINY_HARNESS_MODEL_TIMEOUT_MS,
      supportsReasoning: config.TINY_HARNESS_MODEL_REASONING,
    });
  });

/**
 * The deployment's model, from configuration. A provider's adapter, and its SDK, is imported
 * when the first model call needs it (a step that makes none never loads them), with its key:
 * from Secrets Manager in the cloud (TINY_HARNESS_MODEL_API_KEY_SECRET) or from the environment
 * locally; Bedrock uses the Lambda role's credentials.
 */
export const buildModel = (config: RuntimeConfig): Model => {
  const provider = config.TINY_HARNESS_MODEL_PROVIDER;
  // Each test is written out (not a helper's call) for esbuild to fold it to a constant.
  switch (provider) {
    case 'demo':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'demo') {
        return new DemoModel();
      }
      break;
    case 'conformance':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'conformance') {
        return new ConformanceModel();
      }
      break;
    case 'scripted':
      return loadModelScript(config.TINY_HARNESS_MODEL_SCRIPT ?? '');
    case 'openai':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'openai') {
        return keyedModel(config, config.OPENAI_API_KEY, async (options) => {
          const adapter = await import('../adapters/model/openai-responses-model.js');
          return new adapter.OpenAiResponsesModel(options);
        });
      }
      break;
    case 'openai-chat':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'openai-chat') {
        return keyedModel(config, config.OPENAI_API_KEY, async (options) => {
          const adapter = await import('../adapters/model/openai-chat-model.js');
          return new adapter.OpenAiChatModel(options);
        });
      }
      break;
    case 'anthropic':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'anthropic') {
        return keyedModel(config, config.ANTHROPIC_API_KEY, async (options) => {
          const adapter = await import('../adapters/model/anthropic-messages-model.js');
          return new adapter.AnthropicMessagesModel(options);
        });
      }
      break;
    case 'bedrock':
      if ((globalThis.tinyHarnessBundledModelProvider ?? provider) === 'bedrock') {
        return new LazyModel(async () => {
          const adapter = await import('../adapters/model/bedrock-converse-model.js');
          return new adapter.BedrockConverseModel({
            model: config.TINY_HARNESS_MODEL,
            region: config.AWS_REGION,
            timeoutMs: config.TINY_HARNESS_MODEL_TIMEOUT_MS,
            supportsReasoning: config.TINY_HARNESS_MODEL_REASONING,
          });
        });
      }
      break;
  }
  throw new ConfigurationError(
    `TINY_HARNESS_MODEL_PROVIDER=${provider}, but this bundle holds the ${globalThis.tinyHarnessBundledModelProvider} model only (the provider it was deployed with): deploy with -c modelProvider=${provider} to change it`
  );
};
