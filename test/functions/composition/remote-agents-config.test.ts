import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';

const BASE = {
  TINY_HARNESS_TABLE: 't',
  TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
};

const withAgents = (agents: unknown, env: Record<string, string> = {}) =>
  readRuntimeConfig({ ...BASE, TINY_HARNESS_REMOTE_AGENTS: JSON.stringify(agents), ...env });

const refusal = (agents: unknown, env: Record<string, string> = {}): string => {
  try {
    withAgents(agents, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

const CARD = 'https://ledger.example.com/.well-known/agent-card.json';

describe('the directory of remote agents, from the environment', () => {
  it('fills in how each agent is followed, and keeps the secrets it names for the calls only', () => {
    const config = withAgents(
      { ledger: { card: CARD, auth: { type: 'bearer', token: { env: 'LEDGER_TOKEN' } } } },
      { LEDGER_TOKEN: 'tok-ledger-123' }
    );
    expect(config.TINY_HARNESS_REMOTE_AGENTS).toEqual({
      ledger: {
        card: CARD,
        description: '',
        auth: { type: 'bearer', token: { env: 'LEDGER_TOKEN' } },
        push: true,
        pollSeconds: 2,
        maxPollSeconds: 300,
        unreachableSeconds: 600,
      },
    });
    // Masked in every log line, like the other configured secrets.
    expect(configuredSecrets(config)).toContain('tok-ledger-123');
    expect(readRuntimeConfig(BASE).TINY_HARNESS_REMOTE_AGENTS).toEqual({});
  });

  it('refuses, naming it, a secret variable that is not set, an unknown field, a bad id or a bad interval', () => {
    expect(
      refusal({ ledger: { card: CARD, auth: { type: 'bearer', token: { env: 'NOPE' } } } })
    ).toBe(
      'invalid tiny-harness configuration: TINY_HARNESS_REMOTE_AGENTS: ledger.auth.token names NOPE, which is not set'
    );
    expect(refusal({ ledger: { card: CARD, pushes: false } })).toMatch(
      /TINY_HARNESS_REMOTE_AGENTS: ledger: Unrecognized key: "pushes"/
    );
    expect(refusal({ 'Ledger Agent': { card: CARD } })).toMatch(
      /TINY_HARNESS_REMOTE_AGENTS: Ledger Agent: not an agent id/
    );
    expect(refusal({ ledger: { card: CARD, pollSeconds: 0.5 } })).toMatch(
      /TINY_HARNESS_REMOTE_AGENTS: ledger\.pollSeconds: /
    );
    expect(refusal({ ledger: { card: 'ftp://x' } })).toMatch(
      /ledger\.card: the agent card URL, http\(s\)/
    );
    expect(() => readRuntimeConfig({ ...BASE, TINY_HARNESS_REMOTE_AGENTS: '{not json' })).toThrow(
      /TINY_HARNESS_REMOTE_AGENTS: not JSON/
    );
  });
});
