import type { Model } from '../../functions/core/ports/model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { bearerTokensFor, TEST_BEARER_TOKENS } from './identity.js';
import { startStack } from './local-stack.js';

/** Tests poll both stacks as fast as they like (the local endpoint throttles each caller). */
export const UNTHROTTLED = {
  TINY_HARNESS_THROTTLE_PER_MINUTE: '60000',
  TINY_HARNESS_THROTTLE_BURST: '10000',
};

/**
 * `ledger`: a second local stack that another (`alpha`) calls as its remote agent, knowing
 * alpha's bearer token as the participant `alpha`; its pushes go to alpha's webhook on loopback.
 */
export const startLedger = (model: Model, env: Record<string, string> = {}): Promise<LocalStack> =>
  startStack({
    model,
    env: {
      TINY_HARNESS_AGENT_ID: 'ledger',
      TINY_HARNESS_BEARER_TOKENS: `${TEST_BEARER_TOKENS},${bearerTokensFor(['alpha'])}`,
      TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
      ...UNTHROTTLED,
      ...env,
    },
  });
