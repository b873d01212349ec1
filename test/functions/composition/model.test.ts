import { describe, expect, it } from 'vitest';
import { AnthropicMessagesModel } from '../../../functions/adapters/model/anthropic-messages-model.js';
import { BedrockConverseModel } from '../../../functions/adapters/model/bedrock-converse-model.js';
import { ConformanceModel } from '../../../functions/adapters/model/conformance-model.js';
import { DemoModel } from '../../../functions/adapters/model/demo-model.js';
import { LazyModel } from '../../../functions/adapters/model/lazy-model.js';
import { OpenAiChatModel } from '../../../functions/adapters/model/openai-chat-model.js';
import { OpenAiResponsesModel } from '../../../functions/adapters/model/openai-responses-model.js';
import { buildModel } from '../../../functions/composition/model.js';
import { readRuntimeConfig } from '../../../functions/composition/runtime-config.js';
import { BUILT_IN_PRICES } from '../../../functions/core/loop/prices.js';
import type { Model } from '../../../functions/core/ports/model.js';
import { scripted } from '../../../functions/core/testing/scripted-model.js';

const config = (env: Record<string, string>) =>
  readRuntimeConfig({
    TINY_HARNESS_TABLE: 't',
    TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:1:stateMachine:m',
    ...env,
  });

/** The adapter a provider's model is built into on its first call. */
const adapterOf = async (model: Model): Promise<Model> => {
  expect(model).toBeInstanceOf(LazyModel);
  return (model as LazyModel).model();
};

describe('the deployment model, from configuration', () => {
  it('builds the built-in models at once', () => {
    expect(buildModel(config({}))).toBeInstanceOf(DemoModel);
    expect(buildModel(config({ TINY_HARNESS_MODEL_PROVIDER: 'conformance' }))).toBeInstanceOf(
      ConformanceModel
    );
  });

  it('builds the adapter the provider names, importing it (and its SDK) when it is first needed', async () => {
    expect(
      await adapterOf(
        buildModel(
          config({
            TINY_HARNESS_MODEL_PROVIDER: 'openai',
            TINY_HARNESS_MODEL: 'm',
            OPENAI_API_KEY: 'k',
          })
        )
      )
    ).toBeInstanceOf(OpenAiResponsesModel);
    expect(
      await adapterOf(
        buildModel(
          config({
            TINY_HARNESS_MODEL_PROVIDER: 'openai-chat',
            TINY_HARNESS_MODEL: 'm',
            TINY_HARNESS_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
          })
        )
      )
    ).toBeInstanceOf(OpenAiChatModel);
    expect(
      await adapterOf(
        buildModel(
          config({
            TINY_HARNESS_MODEL_PROVIDER: 'anthropic',
            TINY_HARNESS_MODEL: 'm',
            ANTHROPIC_API_KEY: 'k',
          })
        )
      )
    ).toBeInstanceOf(AnthropicMessagesModel);
    expect(
      await adapterOf(
        buildModel(
          config({ TINY_HARNESS_MODEL_PROVIDER: 'bedrock', TINY_HARNESS_MODEL: 'anthropic.claude' })
        )
      )
    ).toBeInstanceOf(BedrockConverseModel);
  });

  it('reads the key from Secrets Manager only when the first model call needs it', async () => {
    const model = buildModel(
      config({
        TINY_HARNESS_MODEL_PROVIDER: 'anthropic',
        TINY_HARNESS_MODEL: 'm',
        // A secret in a region no endpoint answers for: building may not touch it.
        TINY_HARNESS_MODEL_API_KEY_SECRET: 'arn:aws:secretsmanager:us-east-1:1:secret:k',
        AWS_REGION: 'xx-nowhere-1',
      })
    );
    expect(model).toBeInstanceOf(LazyModel);
  });

  it('refuses, naming what to do, a provider its bundle was not built with', () => {
    // What `cdk synth` sets in the turn step's bundle (cdk/constructs/harness-function.ts).
    globalThis.tinyHarnessBundledModelProvider = 'bedrock';
    try {
      const openai = { TINY_HARNESS_MODEL_PROVIDER: 'openai', TINY_HARNESS_MODEL: 'm' };
      expect(() => buildModel(config({ ...openai, OPENAI_API_KEY: 'k' }))).toThrow(
        'TINY_HARNESS_MODEL_PROVIDER=openai, but this bundle holds the bedrock model only (the provider it was deployed with): deploy with -c modelProvider=openai to change it'
      );
      const bedrock = { TINY_HARNESS_MODEL_PROVIDER: 'bedrock', TINY_HARNESS_MODEL: 'm' };
      expect(buildModel(config(bedrock))).toBeInstanceOf(LazyModel);
      // The built-in ones too: a bundle holds the one model it was deployed with.
      expect(() => buildModel(config({}))).toThrow(
        'TINY_HARNESS_MODEL_PROVIDER=demo, but this bundle holds the bedrock model only'
      );
    } finally {
      globalThis.tinyHarnessBundledModelProvider = undefined;
    }
  });

  it('refuses a real provider without a model id, and a bad price table, at start', () => {
    expect(() => config({ TINY_HARNESS_MODEL_PROVIDER: 'openai' })).toThrow(
      /needs TINY_HARNESS_MODEL/
    );
    expect(() =>
      config({ TINY_HARNESS_MODEL_PRICES: '{"m": {"input": -1, "output": 1}}' })
    ).toThrow(/price table/);
    // The deployment's entries join the built-in table, replacing an entry they name.
    const prices = config({
      TINY_HARNESS_MODEL_PRICES:
        '{"m": {"input": 1, "output": 2}, "gpt-4o": {"input": 3, "output": 4}}',
    }).TINY_HARNESS_MODEL_PRICES;
    expect(prices).toEqual({
      ...BUILT_IN_PRICES,
      m: { input: 1, output: 2 },
      'gpt-4o': { input: 3, output: 4 },
    });
    expect(config({}).TINY_HARNESS_MODEL_PRICES).toEqual(BUILT_IN_PRICES);
  });
});

describe('LazyModel', () => {
  it('builds once, and tries again after a failed build', async () => {
    let builds = 0;
    const lazy = new LazyModel(async () => {
      builds += 1;
      if (builds === 1) throw new Error('secret unavailable');
      return { invoke: async () => scripted({ text: 'ok' }, 0) };
    });
    const request = { instructions: '', input: [], tools: [], cacheKey: 'k', maxOutputTokens: 10 };

    await expect(lazy.invoke(request)).rejects.toThrow('secret unavailable');
    await expect(lazy.invoke(request)).resolves.toMatchObject({ text: 'ok' });
    await lazy.invoke(request);
    expect(builds).toBe(2);
  });
});
