import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * The provider API key stored in Secrets Manager: the secret string itself, or its `apiKey` field
 * when the secret is JSON. The value is returned to the model adapter only, never logged.
 */
export const readApiKeySecret = async (secretId: string, region: string): Promise<string> => {
  const client = new SecretsManagerClient({ region });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined || SecretString === '') {
    throw new Error(`secret ${secretId} has no string value`);
  }
  try {
    const parsed = JSON.parse(SecretString) as { apiKey?: unknown };
    if (typeof parsed.apiKey === 'string') return parsed.apiKey;
  } catch {
    // Not JSON: the secret is the key.
  }
  return SecretString;
};
