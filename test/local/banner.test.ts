import { describe, expect, it } from 'vitest';
import { defaultBudgetsNotice } from '../../functions/core/loop/budget.js';
import { banner } from '../../functions/local/banner.js';
import { SAMPLE_TOOLS_LINE } from '../../functions/local/sample-mcp/default-servers.js';

const facts = {
  url: 'http://127.0.0.1:8080',
  seconds: 4.2,
  model: 'demo',
  lifecycle: 'conversation',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:turns',
  data: '.tiny-harness',
  token: 'local-abc',
  endpointFile: '.tiny-harness/endpoint.json',
  webParticipant: 'you',
};

describe('the npm start banner', () => {
  it('says what listens where and who may call it, never the secret paths', () => {
    const text = banner({ ...facts, internalPorts: { dynamodb: 41234, stepFunctions: 41235 } });
    expect(text).toContain(
      [
        '  bound to       127.0.0.1 only, answering only to Host 127.0.0.1, localhost or [::1]:',
        '                 :8080 the A2A endpoint and the web page',
        "                 :41234 DynamoDB Local, :41235 Step Functions (the stack's own, at a path only this run knows)",
      ].join('\n')
    );
    expect(text).not.toMatch(/:4123[45]\//);
  });
});

describe('what the banner suggests trying', () => {
  const demo = { ...facts, model: 'the built-in demo model (no provider configured)' };

  it('names the demo tour and the approval when the demo model runs with the sample notes', () => {
    const text = banner({ ...demo, tools: SAMPLE_TOOLS_LINE });
    expect(text).toContain('  plan a trip to Lisbon   a plan of three steps');
    expect(text).toContain('"delete note n1", which waits');
    expect(text.indexOf('plan a trip to Lisbon')).toBeGreaterThan(
      text.indexOf('npx tiny-harness chat')
    );
  });

  it('leaves the notes out when other MCP servers are configured', () => {
    const text = banner({ ...demo, tools: 'MCP servers crm (TINY_HARNESS_MCP_SERVERS)' });
    expect(text).toContain('plan a trip to Lisbon');
    expect(text).not.toContain('note buy milk');
  });

  it('names the budgets new tasks start with, and says when a cost limit cannot cap the model', () => {
    const unpriced = defaultBudgetsNotice(
      { '*': { usd: 5, model_calls: 40 }, research: { output_tokens: 9000 } },
      'gpt-x',
      {}
    );
    expect(banner({ ...facts, budgets: unpriced }).split('\n')).toEqual(
      expect.arrayContaining([
        '  budgets        * usd 5, model_calls 40 · research output_tokens 9000',
        '                 (no price for gpt-x in TINY_HARNESS_MODEL_PRICES: a usd limit does not cap its calls (tokens and calls still do))',
      ])
    );
    const priced = defaultBudgetsNotice({ '*': { usd: 5 } }, 'gpt-x', {
      'gpt-x': { input: 1, output: 2 },
    });
    expect(priced).toEqual({ line: '* usd 5' });
    expect(defaultBudgetsNotice({ '*': { model_calls: 3 } }, undefined, {})).toEqual({
      line: '* model_calls 3',
    });
    expect(defaultBudgetsNotice({}, 'gpt-x', {})).toBeUndefined();
    expect(banner(facts)).not.toContain('budgets');
  });

  it('suggests nothing of the demo on another model', () => {
    expect(
      banner({ ...facts, model: 'openai · gpt-x · the provider’s default endpoint' })
    ).not.toContain('plan a trip');
  });
});
