import { AnthropicMessagesModel } from '../adapters/model/anthropic-messages-model.js';
import { BedrockConverseModel } from '../adapters/model/bedrock-converse-model.js';
import { ConformanceModel } from '../adapters/model/conformance-model.js';
import { DemoModel } from '../adapters/model/demo-model.js';
import { LazyModel } from '../adapters/model/lazy-model.js';
import { OpenAiChatModel } from '../adapters/model/openai-chat-model.js';
import { OpenAiResponsesModel } from '../adapters/model/openai-responses-model.js';
import type { ProviderModelOptions } from '../adapters/model/provider-options.js';
import { loadModelScript } from '../adapters/model/script-file.js';
import { readApiKeySecret } from '../adapters/model/secret-key.js';
import type { Model } from '../core/ports/model.js';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * The deployment's model, from configuration. Keys come from Secrets Manager in the cloud
 * (TINY_HARNESS_MODEL_API_KEY_SECRET) or from the environment locally; Bedrock uses the Lambda
 * role's credentials.
 */
export const buildModel = (config: RuntimeConfig): Model => {
  const provider = config.TINY_HARNESS_MODEL_PROVIDER;
  const withKey = (
    envKey: string | undefined,
    make: (options: ProviderModelOptions) => Model
  ): Model => {
    const options = (apiKey: string | undefined): ProviderModelOptions => ({
      model: config.TINY_HARNESS_MODEL,
      baseUrl: config.TINY_HARNESS_MODEL_BASE_URL,
      apiKey,
      timeoutMs: config.TINY_HARNESS_MODEL_TIMEOUT_MS,
      supportsReasoning: config.TINY_HARNESS_MODEL_REASONING,
    });
    const secret = config.TINY_HARNESS_MODEL_API_KEY_SECRET;
    if (secret === undefined) return make(options(envKey));
    return new LazyModel(async () =>
      make(options(await readApiKeySecret(secret, config.AWS_REGION)))
    );
  };
  switch (provider) {
    case 'demo':
      return new DemoModel();
    case 'conformance':
      return new ConformanceModel();
    case 'scripted':
      return loadModelScript(config.TINY_HARNESS_MODEL_SCRIPT ?? '');
    case 'openai':
      return withKey(config.OPENAI_API_KEY, (options) => new OpenAiResponsesModel(options));
    case 'openai-chat':
      return withKey(config.OPENAI_API_KEY, (options) => new OpenAiChatModel(options));
    case 'anthropic':
      return withKey(config.ANTHROPIC_API_KEY, (options) => new AnthropicMessagesModel(options));
    case 'bedrock':
      return new BedrockConverseModel({
        model: config.TINY_HARNESS_MODEL,
        region: config.AWS_REGION,
        timeoutMs: config.TINY_HARNESS_MODEL_TIMEOUT_MS,
        supportsReasoning: config.TINY_HARNESS_MODEL_REASONING,
      });
  }
};
