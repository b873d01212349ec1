import { readSecretString } from '../aws/secret-string.js';

/**
 * The provider API key stored in Secrets Manager: the secret string itself, or its `apiKey` field
 * when the secret is JSON. The value is returned to the model adapter only, never logged.
 */
export const readApiKeySecret = async (secretId: string, region: string): Promise<string> => {
  const secret = await readSecretString(secretId, region);
  try {
    const parsed = JSON.parse(secret) as { apiKey?: unknown };
    if (typeof parsed.apiKey === 'string') return parsed.apiKey;
  } catch {
    // Not JSON: the secret is the key.
  }
  return secret;
};
