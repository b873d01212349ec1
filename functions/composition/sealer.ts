import { KMSClient } from '@aws-sdk/client-kms';
import { KmsSecretSealer } from '../adapters/secrets/kms-secret-sealer.js';
import { LocalSecretSealer, randomLocalKey } from '../adapters/secrets/local-secret-sealer.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * The sealer of push-notification secrets: KMS when the stack names a key (the cloud), else
 * AES-256-GCM with the configured key, or with a random one that lives as long as the process.
 */
export const buildSealer = (config: RuntimeConfig): SecretSealer => {
  const keyId = config.TINY_HARNESS_PUSH_KMS_KEY_ID;
  if (keyId !== undefined) {
    return new KmsSecretSealer({ client: new KMSClient({ region: config.AWS_REGION }), keyId });
  }
  const key = config.TINY_HARNESS_PUSH_TOKEN_KEY;
  return new LocalSecretSealer(key === undefined ? randomLocalKey() : Buffer.from(key, 'base64'));
};
