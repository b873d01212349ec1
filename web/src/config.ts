/** `/config.json`: where the agent is and how to sign in (schemas/web-config.v1.json). */

import validateWebConfig from './generated/validate-web-config.js';
import type { WebConfig } from './generated/web-config.js';

export type { WebConfig };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const parseConfig = (raw: unknown): WebConfig => {
  if (validateWebConfig(raw)) return raw;
  const issue = validateWebConfig.errors?.[0];
  throw new ConfigError(
    `/config.json is not a valid configuration: ${issue?.instancePath || '(root)'} ${issue?.message ?? ''}`.trim()
  );
};

export const loadConfig = async (fetchImpl: typeof fetch = fetch): Promise<WebConfig> => {
  let response: Response;
  try {
    response = await fetchImpl('/config.json', { cache: 'no-store' });
  } catch (error) {
    throw new ConfigError(`cannot read /config.json: ${(error as Error).message}`);
  }
  if (!response.ok) {
    throw new ConfigError(
      `cannot read /config.json: HTTP ${response.status}${response.status === 403 ? ' (open the page at the address npm start printed)' : ''}`
    );
  }
  return parseConfig(await response.json());
};
