import { describe, expect, it } from 'vitest';
import { synthHarness } from './support/synth.js';

type Statement = { Action: string | string[]; Resource: unknown };
type Policy = {
  Properties: { PolicyDocument: { Statement: Statement[] }; Roles: Array<{ Ref: string }> };
};

const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:model-key-AbCdEf';

/** The IAM statements granted to the role of the function whose construct id starts `prefix`. */
const statementsOf = (resources: Record<string, { Type: string }>, prefix: string): Statement[] =>
  Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::IAM::Policy')
    .map(([, resource]) => resource as unknown as Policy)
    .filter((policy) => policy.Properties.Roles.some((role) => role.Ref.startsWith(prefix)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);

const actionsOf = (statements: Statement[]) =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe('model access in the stack', () => {
  it('gives only the turn step the provider key secret and Bedrock, and sets the model environment', () => {
    const { template, app } = synthHarness({
      modelProvider: 'bedrock',
      model: 'us.anthropic.claude-sonnet-4-5',
      modelReasoning: 'true',
      modelApiKeySecret: SECRET,
      modelPrices:
        '{"us.anthropic.claude-sonnet-4-5": {"input": 3, "cachedInput": 0.3, "output": 15}}',
    });
    expect(() => app.synth()).not.toThrow();
    const resources = template.toJSON().Resources as Record<string, { Type: string }>;

    const turnStep = statementsOf(resources, 'TurnStepFunctionRole');
    expect(actionsOf(turnStep)).toEqual(
      expect.arrayContaining(['bedrock:InvokeModel', 'secretsmanager:GetSecretValue'])
    );
    const secretStatement = turnStep.find((s) =>
      actionsOf([s]).includes('secretsmanager:GetSecretValue')
    );
    expect(secretStatement?.Resource).toBe(SECRET);
    // The tool step is told the model's configuration (a new sub-task's default), and may call
    // none of it.
    for (const other of ['ToolStepFunctionRole', 'StreamFunctionRole', 'A2aFunctionRole']) {
      expect(actionsOf(statementsOf(resources, other))).not.toEqual(
        expect.arrayContaining(['bedrock:InvokeModel'])
      );
      expect(actionsOf(statementsOf(resources, other))).not.toContain(
        'secretsmanager:GetSecretValue'
      );
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          TINY_HARNESS_MODEL_PROVIDER: 'bedrock',
          TINY_HARNESS_MODEL: 'us.anthropic.claude-sonnet-4-5',
          TINY_HARNESS_MODEL_REASONING: 'true',
          TINY_HARNESS_MODEL_API_KEY_SECRET: SECRET,
        },
      },
    });
  });

  it('grants no model permission for a provider reached over HTTPS without a secret', () => {
    const { template } = synthHarness({
      modelProvider: 'openai-chat',
      model: 'local',
      modelBaseUrl: 'https://llm.example.com/v1',
    });
    const resources = template.toJSON().Resources as Record<string, { Type: string }>;
    const actions = actionsOf(statementsOf(resources, 'TurnStepFunctionRole'));
    expect(actions).not.toContain('bedrock:InvokeModel');
    expect(actions).not.toContain('secretsmanager:GetSecretValue');
  });

  it('refuses a real provider without a model id at synthesis', () => {
    expect(() => synthHarness({ modelProvider: 'anthropic' })).toThrow(
      /modelProvider=anthropic needs model=<model id>/
    );
  });

  it('refuses a malformed price table at synthesis', () => {
    expect(() => synthHarness({ modelPrices: '{"m": {"input": "cheap"}}' })).toThrow(/price table/);
  });

  it.each([
    ['us.', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['jp.', 'jp.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['au.', 'au.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['us-gov.', 'us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0'],
    ['global.', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0'],
  ])(
    'Bedrock through a %s inference profile: InvokeModel on the profile and its foundation model, in any region',
    (prefix, model) => {
      const { template } = synthHarness({ modelProvider: 'bedrock', model });
      const resources = template.toJSON().Resources as Record<string, { Type: string }>;
      const bedrock = statementsOf(resources, 'TurnStepFunctionRole').filter((s) =>
        actionsOf([s]).some((action) => action.startsWith('bedrock:'))
      );
      expect(bedrock).toHaveLength(1);
      expect(bedrock[0]!.Action).toBe('bedrock:InvokeModel');
      const text = JSON.stringify(bedrock[0]!.Resource);
      const foundation = model.slice(prefix.length);
      expect(text).toContain(`:bedrock:*::foundation-model/${foundation}`);
      expect(text).toContain(`inference-profile/${model}`);
      expect(text).not.toContain(`foundation-model/${prefix}`);
    }
  );

  it('Bedrock with a plain model id: InvokeModel on that foundation model in this region only', () => {
    const { template } = synthHarness({
      modelProvider: 'bedrock',
      model: 'amazon.nova-pro-v1:0',
    });
    const resources = template.toJSON().Resources as Record<string, { Type: string }>;
    const bedrock = statementsOf(resources, 'TurnStepFunctionRole').filter((s) =>
      actionsOf([s]).some((action) => action.startsWith('bedrock:'))
    );
    expect(actionsOf(bedrock)).toEqual(['bedrock:InvokeModel']);
    expect(JSON.stringify(bedrock[0]!.Resource)).not.toContain('*');
  });

  it("decrypts the key's secret with its customer managed KMS key, through Secrets Manager only", () => {
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const { template } = synthHarness({
      modelProvider: 'anthropic',
      model: 'claude-sonnet-4-5',
      modelApiKeySecret: SECRET,
      modelApiKeySecretKmsKey: key,
    });
    const resources = template.toJSON().Resources as Record<string, { Type: string }>;
    const decrypt = statementsOf(resources, 'TurnStepFunctionRole').filter((s) =>
      actionsOf([s]).includes('kms:Decrypt')
    ) as Array<Statement & { Condition?: unknown }>;
    expect(decrypt).toHaveLength(1);
    expect(decrypt[0]!.Resource).toBe(key);
    expect(JSON.stringify(decrypt[0]!.Condition)).toContain('kms:ViaService');
    expect(JSON.stringify(decrypt[0]!.Condition)).toContain('secretsmanager.');
  });
});
