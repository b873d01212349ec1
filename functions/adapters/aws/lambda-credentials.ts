/**
 * What `@aws-sdk/credential-provider-node` resolves to in a Lambda bundle
 * (cdk/constructs/harness-function.ts, `LAMBDA_MODULE_ALIASES`). Every AWS SDK client imports that
 * default chain, which tries the environment, then SSO, INI files, web identity, ECS and EC2
 * metadata: about 100 KB of minified code and its import time in every function. On Lambda the
 * runtime puts the function role's credentials in the environment, where the chain's first
 * source finds them, so a bundle holds that source alone. `npm start` and the tests run
 * unbundled, with the whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
