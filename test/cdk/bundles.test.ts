/**
 * Only what a function uses is in its bundle. Each handler is bundled as `cdk synth` bundles it
 * (cdk/lambda-bundle.ts, with the options of cdk/constructs/harness-function.ts): the minified JavaScript
 * stays under the budget, and the SDKs in it are exactly those of the calls it makes. Bytes and
 * contents are deterministic; how long a bundle takes to import is the benchmark's to print.
 */
import { describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  type Bundle,
  bundleHandler,
  LAMBDA_HANDLERS,
  MCP_CLIENT_BUDGET_BYTES,
} from '../../cdk/lambda-bundle.js';
import { MODEL_PROVIDERS } from '../../functions/composition/model-config.js';

/** The SDK packages a bundle may hold, by what they reach. */
const SDKS = {
  dynamodb: '@aws-sdk/client-dynamodb',
  stepFunctions: '@aws-sdk/client-sfn',
  kms: '@aws-sdk/client-kms',
  secretsManager: '@aws-sdk/client-secrets-manager',
  bedrock: '@aws-sdk/client-bedrock-runtime',
  openai: 'openai',
  anthropic: '@anthropic-ai/sdk',
  mcp: '@modelcontextprotocol/sdk',
  jsonSchema: '@cfworker/json-schema',
  // The SDK's default validator: never in a bundle (the MCP client is given the harness's own).
  ajv: 'ajv',
  // The default credential chain's sources past the environment, and the clients they use: in
  // no bundle (Lambda puts the role's credentials in the environment) but Bedrock's, below.
  credentialChain: '@aws-sdk/credential-provider-ini',
  nestedClients: '@aws-sdk/nested-clients',
} as const;
type Sdk = keyof typeof SDKS;

/** The packages of the input files that put bytes into the bundle (tree-shaken ones put none). */
const packagesIn = (bundle: Bundle): Set<string> => {
  const [output] = Object.values(bundle.metafile.outputs).filter((o) => o.entryPoint);
  const packages = new Set<string>();
  for (const [file, { bytesInOutput }] of Object.entries(output!.inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
    if (name !== undefined && bytesInOutput > 0) packages.add(name);
  }
  return packages;
};

const sdksIn = (bundle: Bundle): Sdk[] => {
  const packages = packagesIn(bundle);
  return (Object.keys(SDKS) as Sdk[]).filter((sdk) => packages.has(SDKS[sdk]));
};

/** The SDKs each function's calls need, and no other. */
const SDKS_OF: Record<string, Sdk[]> = {
  stream: ['dynamodb', 'stepFunctions'],
  // The A2A service seals and opens push configs; the audit reads execution histories.
  a2a: ['dynamodb', 'stepFunctions', 'kms'],
  // Delivery reads records and configs, opens their secrets and posts: no execution to drive.
  push: ['dynamodb', 'kms'],
  reconcile: ['dynamodb', 'stepFunctions'],
  archive: ['dynamodb', 'stepFunctions'],
  // Following a remote child calls its agent with the credentials configured for it.
  'remote-follow': ['dynamodb', 'stepFunctions', 'secretsManager'],
  'remote-push': ['dynamodb', 'stepFunctions', 'secretsManager'],
};

/**
 * The turn step's, by the provider it is deployed with (`scripted` is refused at synth). Secrets
 * Manager whatever the provider: a child on a remote agent is created with its credentials.
 */
const TURN_STEP_SDKS: Record<string, Sdk[]> = {
  demo: ['dynamodb', 'stepFunctions', 'secretsManager'],
  conformance: ['dynamodb', 'stepFunctions', 'secretsManager'],
  openai: ['dynamodb', 'stepFunctions', 'secretsManager', 'openai'],
  'openai-chat': ['dynamodb', 'stepFunctions', 'secretsManager', 'openai'],
  anthropic: ['dynamodb', 'stepFunctions', 'secretsManager', 'anthropic'],
  // Bedrock's client also resolves a bearer token (its own chain, which reaches SSO's client).
  bedrock: ['dynamodb', 'stepFunctions', 'secretsManager', 'bedrock', 'nestedClients'],
};

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

describe('each Lambda bundle holds what its function uses, under 1 MB', () => {
  it('covers every function the stack deploys and every provider it may be deployed with', () => {
    expect(Object.keys(SDKS_OF).sort()).toEqual(
      LAMBDA_HANDLERS.filter((name) => name !== 'turn-step').sort()
    );
    expect(Object.keys(TURN_STEP_SDKS).sort()).toEqual(
      MODEL_PROVIDERS.filter((provider) => provider !== 'scripted').sort()
    );
  });

  it.each(Object.entries(SDKS_OF))('%s', async (name, sdks) => {
    const bundle = await bundleHandler(name);
    console.info(`${name}: ${kib(bundle.code.length)} (source map ${kib(bundle.map.length)})`);
    expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    expect(sdksIn(bundle)).toEqual(sdks);
  });

  it.each(Object.entries(TURN_STEP_SDKS))('turn-step with %s', async (provider, sdks) => {
    const bundle = await bundleHandler('turn-step', { modelProvider: provider, mcpServers: false });
    console.info(`turn-step (${provider}): ${kib(bundle.code.length)}`);
    expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    expect(sdksIn(bundle)).toEqual(sdks);
  });

  // A deployment with MCP servers: its turn step holds the client and the harness's validator, and
  // never Ajv. What that adds is bounded, and the whole fits the budget with every provider.
  it.each(Object.entries(TURN_STEP_SDKS))(
    'turn-step with %s and MCP servers',
    async (provider, sdks) => {
      const without = await bundleHandler('turn-step', {
        modelProvider: provider,
        mcpServers: false,
      });
      const bundle = await bundleHandler('turn-step', {
        modelProvider: provider,
        mcpServers: true,
      });
      const added = bundle.code.length - without.code.length;
      console.info(`turn-step (${provider}, MCP): ${kib(bundle.code.length)} (+${kib(added)})`);
      expect(sdksIn(bundle).sort()).toEqual([...sdks, 'mcp', 'jsonSchema'].sort());
      expect(added).toBeGreaterThan(0);
      expect(added).toBeLessThanOrEqual(MCP_CLIENT_BUDGET_BYTES);
      expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    }
  );

  it('ships its source map apart, without the sources', async () => {
    const bundle = await bundleHandler('push');
    const code = new TextDecoder().decode(bundle.code);
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    const map = JSON.parse(new TextDecoder().decode(bundle.map)) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sources).toContain('functions/handlers/push.ts');
    expect(map.sourcesContent).toBeUndefined();
  });
});
