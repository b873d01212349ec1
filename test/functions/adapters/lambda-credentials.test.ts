import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../../functions/adapters/aws/lambda-credentials.js';

/** What a Lambda bundle's AWS SDK clients resolve credentials with (cdk LAMBDA_MODULE_ALIASES). */
describe('the credential provider of a Lambda bundle', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads the function role's credentials from the environment, as the Lambda runtime sets them", async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'session');

    const credentials = await defaultProvider()();

    expect(credentials).toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
    });
  });

  it('fails plainly, trying no other source, when the environment has none', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');

    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});
