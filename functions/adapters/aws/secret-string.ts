import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** A Secrets Manager secret's string value (a secret: returned to its user only, never logged). */
export const readSecretString = async (secretId: string, region: string): Promise<string> => {
  const client = new SecretsManagerClient({ region });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined || SecretString === '') {
    throw new Error(`secret ${secretId} has no string value`);
  }
  return SecretString;
};
