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
    for (const other of ['StreamFunctionRole', 'A2aFunctionRole']) {
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
    expect(() => synthHarness({ modelProvider: 'anthropic' })).toThrow(/needs -c model=/);
  });

  it('refuses a malformed price table at synthesis', () => {
    expect(() => synthHarness({ modelPrices: '{"m": {"input": "cheap"}}' })).toThrow(/price table/);
  });
});
