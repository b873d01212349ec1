import type { PushConfig } from '../core/ports/push-config-store.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';

type Transform = (value: string, context: { taskId: string; configId: string }) => Promise<string>;

/**
 * The config with its token and credentials passed through `transform`, bound to the config's
 * place (task id and config id: a sealed token copied onto another config does not open). An
 * empty value stays empty: there is nothing to hide, and "no token" must read back as one.
 */
const withSecrets = async (config: PushConfig, transform: Transform): Promise<PushConfig> => {
  const context = { taskId: config.taskId, configId: config.id };
  const apply = (value: string) => (value === '' ? Promise.resolve('') : transform(value, context));
  const { authentication } = config;
  return {
    ...config,
    token: await apply(config.token),
    authentication:
      authentication === null
        ? null
        : { scheme: authentication.scheme, credentials: await apply(authentication.credentials) },
  };
};

/** The config as it is stored: token and credentials sealed. */
export const sealPushSecrets = (sealer: SecretSealer, config: PushConfig): Promise<PushConfig> =>
  withSecrets(config, (value, context) => sealer.seal(value, context));

/** A stored config with its token and credentials open (`SecretUnreadableError` if they do not). */
export const openPushSecrets = (sealer: SecretSealer, config: PushConfig): Promise<PushConfig> =>
  withSecrets(config, (value, context) => sealer.open(value, context));
